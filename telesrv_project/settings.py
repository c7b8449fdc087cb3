"""Django settings for telesrv.

Every setting that differs between machines comes from a ``TELESRV_*`` environment
variable (or the optional ``.env`` file, see ``telesrv_project.dotenv``). Service
addresses default to a local box (PostgreSQL and Redis on 127.0.0.1, trust auth); the
rest defaults to production-safe: ``DEBUG`` is off unless ``TELESRV_DEBUG=1`` (``make
serve`` sets it for local development), and a server process refuses to start with the
development secret key while ``DEBUG`` is off (``edge_app.startup``).
"""

import os
from pathlib import Path

from telesrv_project.db_hosts import database_hosts
from telesrv_project.dotenv import load_env_file

BASE_DIR = Path(__file__).resolve().parent.parent

# Variables already in the environment win over the file.
ENV_FILE = load_env_file(Path(os.environ.get("TELESRV_ENV_FILE", BASE_DIR / ".env")))


def env(name: str, default: str) -> str:
    return os.environ.get(f"TELESRV_{name}", default)


def env_bool(name: str, default: bool) -> bool:
    return env(name, "1" if default else "0").lower() in ("1", "true", "yes", "on")


DEV_SECRET_KEY = "telesrv-local-development-key-change-me-in-production"
SECRET_KEY = env("SECRET_KEY", DEV_SECRET_KEY)
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]").split(",")

# Behind the TLS reverse proxy of docs/operations.md: cookies only over HTTPS, HSTS,
# redirect plain HTTP. Off by default so http://127.0.0.1:8000 keeps working.
ADMIN_HTTPS = env_bool("ADMIN_HTTPS", False)
if ADMIN_HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("ADMIN_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(env("ADMIN_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("ADMIN_HSTS_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("ADMIN_HSTS_PRELOAD", True)
CSRF_TRUSTED_ORIGINS = [o for o in env("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "psqlextra",
    "channels",
    "edge_app",
    "accounts_app",
    "reports_app",
    "langpacks_app",
    "channels_app",
    "private_app",
    "media_app",
    "stickers_app",
    "bots_app",
    "scheduling_app",
    "calls_app",
    "webpages_app",
    "polls_app",
    "messages_app",
    "chatlists_app",
    "botapi_app",
    "console_app",
    "webclient_app",
]

MIDDLEWARE = [
    "telesrv_project.probes.ProbesMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "telesrv_project.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = None
ASGI_APPLICATION = "telesrv_project.asgi.application"

DATABASES = {
    "default": {
        # psqlextra's backend is PostgreSQL's plus partitioned-table support.
        "ENGINE": "psqlextra.backend",
        "NAME": env("DB_NAME", "telesrv"),
        "USER": env("DB_USER", "postgres"),
        "PASSWORD": env("DB_PASSWORD", ""),
        "CONN_MAX_AGE": 60,
        # Every node that may be the primary; connections go to the one accepting writes.
        **database_hosts(
            env("DB_HOSTS", ""),
            env("DB_HOST", "127.0.0.1"),
            env("DB_PORT", "5432"),
            session_attrs="read-write",
            connect_timeout=env("DB_CONNECT_TIMEOUT", "2"),
            tcp_timeout=env("DB_TCP_TIMEOUT", "5"),
        ),
    }
}
# Standbys for reads that tolerate seconds of lag (console lists, search, stats.*;
# docs/operations.md): the alias READ_DATABASE names, the primary when none is set.
if env("DB_REPLICA_HOSTS", "").strip():
    DATABASES["replica"] = {
        **DATABASES["default"],
        **database_hosts(
            env("DB_REPLICA_HOSTS", ""),
            "",
            env("DB_PORT", "5432"),
            session_attrs="prefer-standby",
            connect_timeout=env("DB_CONNECT_TIMEOUT", "2"),
            tcp_timeout=env("DB_TCP_TIMEOUT", "5"),
        ),
        "TEST": {"MIRROR": "default"},
    }
READ_DATABASE = "replica" if "replica" in DATABASES else "default"
# psqlextra's backend sits on this one, which replaces connections a PostgreSQL restart
# killed before they are used (the listener has no requests to recycle them).
POSTGRES_EXTRA_DB_BACKEND_BASE = "edge_app.db_backend"

# redis://host:port/db (one Redis) or redis+cluster://host:port[,host:port...]/ (the seed
# nodes of a Redis Cluster); every Redis user connects through edge_app.redis_conn.
REDIS_URL = env("REDIS_URL", "redis://127.0.0.1:6379/0")
REDIS_PREFIX = env("REDIS_PREFIX", "telesrv")
_REDIS_CLUSTER = REDIS_URL.split("://", 1)[0].lower() in ("redis+cluster", "rediss+cluster")

# Neither Django's cache nor the channel layer is used by telesrv's code today (its Redis
# state goes through edge_app.redis_conn); they stay configured for third-party parts.
# Their Redis backends know no cluster, so a cluster deployment keeps them in process.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache"
        if _REDIS_CLUSTER
        else "django_redis.cache.RedisCache",
        "LOCATION": "telesrv" if _REDIS_CLUSTER else REDIS_URL,
        "KEY_PREFIX": REDIS_PREFIX,
    }
}

# Targeted delivery (edge_app.presence): a listener's presence leases last this long
# without renewal (a killed listener's users are routed nowhere after it) and are
# renewed this often.
PRESENCE_LEASE_SECONDS = float(env("PRESENCE_LEASE_SECONDS", "30"))
PRESENCE_REFRESH_SECONDS = float(env("PRESENCE_REFRESH_SECONDS", "10"))

CHANNEL_LAYERS = {
    "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}
    if _REDIS_CLUSTER
    else {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "prefix": REDIS_PREFIX + ":asgi"},
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
# The console shows every date as YYYY-MM-DD HH:MM:SS (console_app/formats).
FORMAT_MODULE_PATH = ["console_app.formats"]
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- telesrv ---------------------------------------------------------------------
from telesrv_project.version import VERSION as TELESRV_VERSION  # noqa: E402, F401 - a setting

# The build, for telesrv_build_info in /metrics (e.g. the git commit a package was made from).
BUILD_COMMIT = env("BUILD_COMMIT", "")
# Where the server's RSA key pair lives. Outside the repository by default: the private
# key must never be committed.
TELESRV_STATE_DIR = Path(env("STATE_DIR", str(Path.home() / ".telesrv")))
MTPROTO_RSA_KEY_PATH = Path(env("RSA_KEY", str(TELESRV_STATE_DIR / "server_rsa.pem")))
# Media: uploaded parts wait on local disk until a message or photo uses them; the
# assembled files go to the media storage, content-addressed by SHA-256. By default that
# is a directory under the state directory. TELESRV_MEDIA_STORAGE=s3 switches to an
# S3-compatible store for deployments on several machines (needs the optional
# django-storages[s3] package; see docs/media.md for its TELESRV_S3_* settings).
TELESRV_MEDIA_DIR = Path(env("MEDIA_DIR", str(TELESRV_STATE_DIR / "media")))
TELESRV_UPLOADS_DIR = Path(env("UPLOADS_DIR", str(TELESRV_MEDIA_DIR / "uploads")))
TELESRV_UPLOAD_TTL = int(env("UPLOAD_TTL", str(24 * 3600)))  # unused parts expire after this
if env("MEDIA_STORAGE", "filesystem") == "s3":
    _MEDIA_STORAGE = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env("S3_BUCKET", "telesrv-media"),
            "endpoint_url": env("S3_ENDPOINT_URL", "") or None,
            "access_key": env("S3_ACCESS_KEY", "") or None,
            "secret_key": env("S3_SECRET_KEY", "") or None,
            "region_name": env("S3_REGION", "") or None,
            "location": env("S3_PREFIX", "media"),
            "file_overwrite": True,  # content-addressed: the same name is the same bytes
        },
    }
else:
    _MEDIA_STORAGE = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": str(TELESRV_MEDIA_DIR / "files")},
    }
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "telesrv_media": _MEDIA_STORAGE,
}
# The MTProto listener, and the address help.getConfig advertises back to clients.
MTPROTO_HOST = env("MTPROTO_HOST", "127.0.0.1")
# Bots (docs/bots.md): send limits (FLOOD_WAIT_X past them), how long a user's callback
# or inline query waits for the bot (BOT_RESPONSE_TIMEOUT), bots per owner, the service bot.
BOT_FLOOD_PER_SECOND = int(env("BOT_FLOOD_PER_SECOND", "30"))
BOT_FLOOD_GROUP_PER_MINUTE = int(env("BOT_FLOOD_GROUP_PER_MINUTE", "20"))
BOT_RESPONSE_TIMEOUT = float(env("BOT_RESPONSE_TIMEOUT", "10"))
BOT_CHANNEL_DIFFERENCE_LIMIT = int(env("BOT_CHANNEL_DIFFERENCE_LIMIT", "1000"))  # events per page for bots
BOTS_PER_OWNER = int(env("BOTS_PER_OWNER", "20"))
SERVICE_BOT_ID = int(env("SERVICE_BOT_ID", "93372553"))
SERVICE_BOT_USERNAME = env("SERVICE_BOT_USERNAME", "BotFather")
MTPROTO_PORT = int(env("MTPROTO_PORT", "4430"))
MTPROTO_PUBLIC_HOST = env("MTPROTO_PUBLIC_HOST", MTPROTO_HOST)
MTPROTO_PUBLIC_PORT = int(env("MTPROTO_PUBLIC_PORT", str(MTPROTO_PORT)))
MTPROTO_DC_ID = int(env("DC_ID", "2"))
# Listener processes on the port (SO_REUSEPORT); one per core uses the machine.
MTPROTO_WORKERS = int(env("MTPROTO_WORKERS", "1"))
# Each listener's small HTTP port: /healthz, /readyz, /metrics (-1 turns it off).
MTPROTO_HEALTH_HOST = env("MTPROTO_HEALTH_HOST", "127.0.0.1")
MTPROTO_HEALTH_PORT = int(env("MTPROTO_HEALTH_PORT", "9430"))
# Connection hygiene of the listener (docs/reliability.md): connections at once per client
# address (0: no limit), seconds a started packet has to complete, the largest packet
# accepted (what one connection may make the server buffer), and per auth key a request
# rate / burst past which requests get FLOOD_WAIT_X (rate 0: no limit).
MTPROTO_MAX_CONNECTIONS_PER_IP = int(env("MTPROTO_MAX_CONNECTIONS_PER_IP", "1000"))
MTPROTO_FRAME_DEADLINE = float(env("MTPROTO_FRAME_DEADLINE", "30"))
MTPROTO_MAX_FRAME_BYTES = int(env("MTPROTO_MAX_FRAME_BYTES", str(4 * 1024 * 1024)))
# Load balancers (addresses or networks, comma-separated) whose connections open with a
# PROXY protocol v1/v2 header naming the client; empty: a PROXY header is refused.
MTPROTO_TRUSTED_PROXIES = env("MTPROTO_TRUSTED_PROXIES", "")
RPC_RATE_PER_KEY = float(env("RPC_RATE_PER_KEY", "200"))
RPC_BURST_PER_KEY = float(env("RPC_BURST_PER_KEY", "1000"))
ADMIN_HOST = env("ADMIN_HOST", "127.0.0.1")
ADMIN_PORT = int(env("ADMIN_PORT", "8000"))
# The web client (webclient_app, docs/webclient.md): where `manage.py webclient build`
# keeps its builds (default <state dir>/webclient), and the WebSocket URL the served app
# connects to (default ws://MTPROTO_PUBLIC_HOST:MTPROTO_PUBLIC_PORT/apiws; behind a TLS
# proxy, its wss:// URL).
WEBCLIENT_DIR = env("WEBCLIENT_DIR", "")
WEBCLIENT_WS_URL = env("WEBCLIENT_WS_URL", "")
# The HTTP Bot API (manage.py runbotapi; botapi_app).
BOTAPI_HOST = env("BOTAPI_HOST", "127.0.0.1")
BOTAPI_PORT = int(env("BOTAPI_PORT", "8081"))
# Telegram's test-number convention (99966XYYYY logs in with code XXXXX); off by default.
TEST_PHONE_NUMBERS = env_bool("TEST_PHONE_NUMBERS", False)
# The country (ISO 3166-1 alpha-2) help.getNearestDc names for a client whose country is not
# known (not logged in): the apps' phone screens preselect its calling code.
DEFAULT_COUNTRY = env("DEFAULT_COUNTRY", "US")

# E-mail: two-step recovery / confirmation codes and login codes sent by e-mail go
# through Django's e-mail framework (SMTP by default).
EMAIL_BACKEND = env("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = env("EMAIL_HOST", "localhost")
EMAIL_PORT = int(env("EMAIL_PORT", "25"))
EMAIL_HOST_USER = env("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = env("EMAIL_FROM", "telesrv@localhost")
# Where login codes go when the account has no other session to get them in-app:
# "log" (server log and the admin console, for closed deployments), "email" (the
# account's login e-mail), "webhook" (POST {phone, code} to LOGIN_CODE_WEBHOOK_URL,
# e.g. an SMS gateway).
LOGIN_CODE_DELIVERY = env("LOGIN_CODE_DELIVERY", "log")
# Whether the "log" delivery writes the code itself into the server log: on in
# development, off in production unless asked (the console's login codes page has it).
LOG_LOGIN_CODES = env_bool("LOG_LOGIN_CODES", DEBUG)
LOGIN_CODE_WEBHOOK_URL = env("LOGIN_CODE_WEBHOOK_URL", "")
# Whom the admin process's public /login-code page tells users to ask for their code (e.g. "the help desk, +1 555 0100").
LOGIN_CODE_CONTACT = env("LOGIN_CODE_CONTACT", "")

# Link previews (webpages_app): the server fetches the first link of a message. Only
# http/https on ports 80/443 of public addresses unless allowed here (comma-separated
# host, host:port or CIDR; a bare host or CIDR allows any port). The time cap covers a
# page with its redirects and image; a page is fetched again after LINK_PREVIEW_TTL.
LINK_PREVIEWS = env_bool("LINK_PREVIEWS", True)
LINK_PREVIEW_ALLOW = [e.strip() for e in env("LINK_PREVIEW_ALLOW", "").split(",") if e.strip()]
LINK_PREVIEW_TIMEOUT = float(env("LINK_PREVIEW_TIMEOUT", "5"))
LINK_PREVIEW_MAX_BYTES = int(env("LINK_PREVIEW_MAX_BYTES", str(1024 * 1024)))  # an image may be 5x
LINK_PREVIEW_TTL = int(env("LINK_PREVIEW_TTL", str(24 * 3600)))
# help.getSupport: the phone of the account that answers users' questions (empty: the
# built-in service account "Telegram", 777000).
SUPPORT_PHONE = env("SUPPORT_PHONE", "")
# account.deleteAccount without the password of an account that has one waits this long
# (Telegram: a week); the self-destruct job (inactive accounts past their TTL, waited-for
# deletions) runs this often in each listener process.
ACCOUNT_DELETE_WAIT_SECONDS = int(env("ACCOUNT_DELETE_WAIT_SECONDS", str(7 * 86400)))
ACCOUNT_TTL_JOB_INTERVAL = float(env("ACCOUNT_TTL_JOB_INTERVAL", "3600"))
# Data exports (account.initTakeoutSession): a device logged in for less than this many
# seconds waits (TAKEOUT_INIT_DELAY_X; Telegram: a day); wrapped requests per second and
# export session before FLOOD_WAIT.
TAKEOUT_INIT_DELAY = int(env("TAKEOUT_INIT_DELAY", "0"))
TAKEOUT_RATE = float(env("TAKEOUT_RATE", "30"))

# TELESRV_LOG_LEVEL for everything, TELESRV_LOG_LEVEL_RPC=DEBUG for one line per RPC
# call, TELESRV_LOG_FORMAT=json for one JSON object per line (see telesrv_project.logs).
LOG_LEVEL = env("LOG_LEVEL", "INFO").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "routine_403": {"()": "telesrv_project.logs.RoutineForbiddenFilter"},
    },
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "telesrv_project.logs.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if env("LOG_FORMAT", "plain").lower() == "json" else "plain",
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Django's own handlers would print these a second time (and mail admins):
        # one handler, at the root.
        "django": {"handlers": [], "level": LOG_LEVEL, "propagate": True},
        "django.request": {"handlers": [], "level": "WARNING", "propagate": True, "filters": ["routine_403"]},
        "django.server": {"handlers": [], "level": "WARNING", "propagate": True},
        "telesrv.rpc": {"level": env("LOG_LEVEL_RPC", LOG_LEVEL).upper()},
    },
}

# Private calls (calls_app; docs/operations.md "Calls and TURN"). TURN servers
# ("host:port", comma-separated) share CALL_TURN_SECRET with telesrv (coturn's
# static-auth-secret): each call gets credentials valid for CALL_TURN_TTL seconds (TURN
# REST: username "expiry:user id", password base64(HMAC-SHA1(secret, username))). Without
# TURN servers, calls get the STUN servers only (peer to peer, which fails between two
# symmetric NATs). Ring and receive timeouts are help.getConfig's (edge_app.dc.Limits).
CALL_TURN_SERVERS = [e.strip() for e in env("CALL_TURN_SERVERS", "").split(",") if e.strip()]
CALL_TURN_SECRET = env("CALL_TURN_SECRET", "")
CALL_TURN_TTL = int(env("CALL_TURN_TTL", str(4 * 3600)))
CALL_STUN_SERVERS = [e.strip() for e in env("CALL_STUN_SERVERS", "").split(",") if e.strip()]
# coturn as ``manage.py runcoturn`` (and ``serve`` with CALL_TURN_RUN) runs it: its
# TURN/STUN address, relay port range, public address behind a NAT, TLS port and files.
CALL_TURN_RUN = env_bool("CALL_TURN_RUN", False)
CALL_TURN_LISTEN = env("CALL_TURN_LISTEN", "127.0.0.1:3478")
CALL_TURN_RELAY_PORTS = env("CALL_TURN_RELAY_PORTS", "49160-49300")
CALL_TURN_EXTERNAL_IP = env("CALL_TURN_EXTERNAL_IP", "")
CALL_TURN_TLS_PORT = int(env("CALL_TURN_TLS_PORT", "5349"))
CALL_TURN_CERT = env("CALL_TURN_CERT", "")
CALL_TURN_PKEY = env("CALL_TURN_PKEY", "")

# Group calls' media plane (calls_app.sfu; docs/scaling.md "Group calls"): the SFU nodes
# (Janus) as "name=http://host:port/janus", comma-separated. Each call is pinned to one
# node by its id (rendezvous hashing: adding a node moves only the calls it wins).
# Without nodes, joining a group call answers an error. ``manage.py runsfu`` (and
# ``serve`` with SFU_RUN) runs one Janus with its HTTP API on SFU_LISTEN, media on the
# SFU_RTP_PORTS range (UDP) of SFU_INTERFACE (an interface name or address prefix;
# empty: every interface but loopback, which Janus never uses for media).
SFU_NODES = [e.strip() for e in env("SFU_NODES", "").split(",") if e.strip()]
SFU_RUN = env_bool("SFU_RUN", False)
SFU_LISTEN = env("SFU_LISTEN", "127.0.0.1:8088")
SFU_RTP_PORTS = env("SFU_RTP_PORTS", "20000-20999")
SFU_INTERFACE = env("SFU_INTERFACE", "")
SFU_TIMEOUT = float(env("SFU_TIMEOUT", "10"))
