from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import transaction

from articles import services as article_services
from articles.seeding import reset_sequence
from blogs import services as blog_services
from blogs.management.base import OperatorCommand
from blogs.models import Blog

DEMO_ARTICLES = 25
LOCKED_TITLE = "Locked by the editors"
BLOGS = {
    1: ("Alice's notebook", "Short notes on building web services.", "alice"),
    2: ("Bob's workshop", "Woodwork, tools and the occasional chair.", "bob"),
    3: ("The old newsletter", "Archived issues, kept for the record.", "alice"),
}


class Command(OperatorCommand):
    help = (
        "Load the demo cast and blogs into a database without blogs: alice (author of blogs 1 "
        "and 3), bob (author of blog 2), staff user editor with the article permissions, blog 1 "
        f"with {DEMO_ARTICLES} articles and one locked, blog 3 archived. A database that has a "
        "blog is left as it is, so a restart of make run keeps what the user changed."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--editor-password",
            default="editor",
            help="password of the demo staff user 'editor' for /admin/ (demo only)",
        )

    @transaction.atomic
    def handle(self, *args, editor_password: str, **options) -> None:
        # Seeded once: a blog means the demo was loaded (or the database is in use), and a
        # deleted demo article, a changed password or an edited title must stay as they are.
        if Blog.objects.exists():
            self.stdout.write(
                f"Demo data left as it is: the database has blogs ({Blog.objects.count()}); "
                "for a fresh demo, stop the server and delete db.sqlite3."
            )
            return
        self._seed(editor_password)
        self.stdout.write(
            f"Demo data ready: {Blog.objects.count()} blogs, "
            f"{Blog.objects.get(pk=1).article_count} articles in blog 1."
        )

    def _seed(self, editor_password: str) -> None:
        users = {name: self._user(name) for name in ("alice", "bob")}
        editor = self._user("editor", is_staff=True)
        editor.set_password(editor_password)
        editor.save(update_fields=["password"])
        editor.user_permissions.add(
            *Permission.objects.filter(
                content_type__app_label__in=["articles", "blogs"],
                codename__regex=r"^(add|change|delete|view)_(article|comment|blog|accesstoken)$",
            ),
            # Every blog's webhooks and their deliveries (docs/webhooks.md).
            *Permission.objects.filter(
                content_type__app_label="webhooks",
                codename__regex=r"^(add|change|delete|view)_(subscription|delivery)$",
            ),
            # To pick the user a token is issued to (the admin's autocomplete).
            Permission.objects.get(content_type__app_label="auth", codename="view_user"),
        )

        blogs = {}
        for blog_id, (title, description, author) in BLOGS.items():
            blogs[blog_id] = Blog.objects.create(pk=blog_id, title=title, description=description)
            blogs[blog_id].authors.add(users[author])
        reset_sequence(Blog)

        articles = [
            article_services.article_create(
                blog=blogs[1],
                title=f"Demo article {number}",
                content=f"The text of demo article {number}.",
            )
            for number in range(1, DEMO_ARTICLES + 1)
        ]
        locked = article_services.article_create(
            blog=blogs[1], title=LOCKED_TITLE, content="Editors froze this one."
        )
        article_services.article_lock(article=locked)
        article_services.comment_create(
            article=articles[0], author=users["bob"], text="Nice start, Alice!"
        )

        article_services.article_create(
            blog=blogs[3], title="Last issue", content="Thanks for reading."
        )
        blog_services.blog_archive(blog=blogs[3])

    def _user(self, username: str, *, is_staff: bool = False):
        user, created = get_user_model().objects.get_or_create(
            username=username,
            defaults={"email": f"{username}@example.org", "is_staff": is_staff},
        )
        if created and username != "editor":
            user.set_unusable_password()
            user.save(update_fields=["password"])
        return user
