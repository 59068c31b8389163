import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create a local superuser with a random password, printed once, unless it exists."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username, **options):
        User = get_user_model()
        if User.objects.filter(username=username).exists():
            self.stdout.write(
                f"Admin account {username!r} exists; its password was printed when it was "
                f"created. A new one: python manage.py changepassword {username}"
            )
            return
        password = secrets.token_urlsafe(12)
        User.objects.create_superuser(username=username, email="", password=password)
        self.stdout.write(
            f"Created admin account {username!r} with password {password} (shown only now)."
        )
