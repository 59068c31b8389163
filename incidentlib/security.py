import ipaddress

from django.conf import settings


def client_ip(request):
    """The address of the client, as seen by the nearest of our trusted reverse proxies.

    Behind a load balancer REMOTE_ADDR is the balancer's own address: throttling logins by it
    would lock out everyone at once. Each trusted proxy appends the address it saw to
    X-Forwarded-For, so the client's is TRUSTED_PROXY_COUNT entries from the end; anything
    further left was written by the client and proves nothing.
    """
    proxies = settings.TRUSTED_PROXY_COUNT
    forwarded = [
        address.strip() for address in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
    ]
    if proxies and len(forwarded) >= proxies and is_ip_address(forwarded[-proxies]):
        return forwarded[-proxies]
    return request.META.get("REMOTE_ADDR")


def is_ip_address(text):
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
