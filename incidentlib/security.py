import functools
import ipaddress

from django.conf import settings


def client_ip(request):
    """The address of the client, as seen by the nearest of our trusted reverse proxies.

    Behind a load balancer REMOTE_ADDR is the balancer's own address: throttling logins by it
    would lock out everyone at once. Each trusted proxy appends the address it saw to
    X-Forwarded-For, so the client's is TRUSTED_PROXY_COUNT entries from the end; anything
    further left was written by the client and proves nothing. And only a proxy's request
    carries a header a proxy wrote: from an address outside TRUSTED_PROXY_NETWORKS the app
    was reached around them, and a new X-Forwarded-For each time would be a new address.
    """
    proxies = settings.TRUSTED_PROXY_COUNT
    remote = request.META.get("REMOTE_ADDR")
    if not proxies or not from_trusted_proxy(remote):
        return remote
    forwarded = [
        address.strip() for address in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
    ]
    if len(forwarded) >= proxies and is_ip_address(forwarded[-proxies]):
        return forwarded[-proxies]
    return remote


@functools.cache
def trusted_networks(networks):
    return [ipaddress.ip_network(network, strict=False) for network in networks]


def from_trusted_proxy(address):
    if not is_ip_address(address or ""):
        return False
    ip = ipaddress.ip_address(address)
    return any(
        ip in network for network in trusted_networks(tuple(settings.TRUSTED_PROXY_NETWORKS))
    )


def is_ip_address(text):
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
