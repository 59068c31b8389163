from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cases", "0040_public_change_neighbour"),
    ]

    operations = [
        migrations.AddField(
            model_name="publicchange",
            name="languages",
            field=models.CharField(blank=True, default=None, max_length=32, null=True),
        ),
    ]
