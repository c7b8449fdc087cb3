from django.apps import AppConfig


class PollsConfig(AppConfig):
    name = "polls_app"
    verbose_name = "Polls and quizzes"
