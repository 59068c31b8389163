import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from cases.editorial.roles import ROLES, ensure_groups


class Command(BaseCommand):
    help = (
        "Create a staff account for an editor or a reviewer (or move an existing one to that "
        "role). Prints a random password for a new account unless --password is given."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", choices=ROLES, required=True)
        parser.add_argument("--email", default="")
        parser.add_argument("--password", help="the password (default: a random one, printed)")

    def handle(self, *args, username, role, email, password, **options):
        User = get_user_model()
        group = ensure_groups()[ROLES[role]]
        user, created = User.objects.get_or_create(username=username, defaults={"email": email})
        user.is_staff = True
        if created:
            password = password or secrets.token_urlsafe(12)
        if password:
            user.set_password(password)
        user.save()
        user.groups.remove(*Group.objects.filter(name__in=ROLES.values()))
        user.groups.add(group)
        if created:
            self.stdout.write(f"Created {role} {username!r} with password {password}")
        else:
            self.stdout.write(f"{username!r} is now a {role}.")
