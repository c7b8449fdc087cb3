# telesrv: `make serve` sets everything up and runs the server; `make test` runs the suite.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
DEPS   := $(VENV)/.deps-installed
# The JavaScript clients of the e2e suite (GramJS, mtcute), from package-lock.json; the
# stamp holds the lock file it was installed from (tests/e2e/js_clients.py checks it too).
NODE_DEPS := node_modules/.telesrv-installed
# Real calls through ntgcalls (WebRTC in native threads) run in a pytest process of their
# own: a native fault there must not take the rest of the suite's results with it.
NATIVE_CALL_TESTS := tests/e2e/test_calls_media.py tests/e2e/test_group_calls_media.py

.PHONY: serve test lint services db venv regen clean browser haproxy patroni testbed node tdesktop coturn calls-media webclient sfu

$(DEPS): requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	touch $@

venv: $(DEPS)

# Install scripts are skipped: the only native parts (better-sqlite3, ws accelerators)
# are optional for the tests, and building them would cost minutes.
$(NODE_DEPS): package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund
	cp package-lock.json $@

node: $(NODE_DEPS)

services:
	scripts/ensure-services.sh

db: venv services
	$(BIN)/python -m telesrv_project.database
	$(BIN)/python manage.py migrate --noinput

# A local development server: DEBUG on (login codes in the log, the development secret
# key accepted) unless TELESRV_DEBUG says otherwise. Production: docs/operations.md.
# It serves the web client `make webclient` built (docs/webclient.md) at /web/.
serve: db
	TELESRV_DEBUG=$${TELESRV_DEBUG:-1} TELESRV_WEBCLIENT_DIR=$${TELESRV_WEBCLIENT_DIR:-$(WEBCLIENT_CACHE)} \
		$(BIN)/python manage.py serve

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: venv services browser haproxy patroni testbed node tdesktop coturn calls-media sfu webclient lint
	$(BIN)/python -m pytest $(addprefix --ignore=,$(NATIVE_CALL_TESTS))
	$(BIN)/python -m pytest $(NATIVE_CALL_TESTS)

regen: venv
	$(BIN)/python -m tl.codegen

clean:
	rm -rf $(VENV) .pytest_cache node_modules

# Headless Chromium + chromedriver for the console's browser tests (tests/e2e/test_console.py
# skips without them). Debian packages; run as root or with sudo.
browser:
	test -x /usr/bin/chromium -a -x /usr/bin/chromedriver || (apt-get update && apt-get install -y chromium chromium-driver)

# coturn, the TURN server of private calls (manage.py runcoturn runs it with telesrv's
# settings; the package's system service stays off). Debian package; run as root or with sudo.
coturn:
	test -x /usr/bin/turnserver || (apt-get update && apt-get install -y coturn)

# Group calls' SFU node (Janus 1.1.2, Debian's package; calls_app/sfu). The package's own
# service is not used: `manage.py runsfu` (or `serve` with TELESRV_SFU_RUN=1) runs Janus
# with calls_app/sfu/janus/ and the TELESRV_SFU_* settings.
sfu:
	test -x /usr/bin/janus || (apt-get update && apt-get install -y janus)
	(command -v systemctl >/dev/null && systemctl disable --now janus >/dev/null 2>&1) || true

# The call stacks of tests/e2e/test_calls_media.py (ntgcalls, py-tgcalls from
# requirements-dev.txt) play generated tones: ffmpeg makes them.
calls-media:
	test -x /usr/bin/ffmpeg || (apt-get update && apt-get install -y ffmpeg)

# HAProxy in front of a listener with the PROXY protocol (tests/e2e/test_haproxy.py skips
# without it). Debian package; run as root or with sudo.
haproxy:
	test -x /usr/sbin/haproxy || (apt-get update && apt-get install -y haproxy)

# Patroni with etcd managing two PostgreSQL nodes (tests/e2e/test_patroni_failover.py
# skips without them). Debian packages; run as root or with sudo.
patroni:
	test -x /usr/bin/patroni -a -x /usr/bin/etcd && /usr/bin/python3 -c 'import etcd' 2>/dev/null \
		|| (apt-get update && apt-get install -y patroni etcd-server etcd-client python3-etcd)

# The multi-machine test bed (scripts/testbed.py; tests/e2e/test_testbed.py skips without
# them): Redis in cluster mode and network namespaces; nftables cuts a machine's network
# in tests/e2e/test_partitions.py. Debian packages; run as root.
testbed: haproxy
	test -x /usr/bin/redis-server -a -x /usr/bin/redis-cli -a -x /usr/sbin/ip -a -x /usr/sbin/nft \
		|| (apt-get update && apt-get install -y redis-server redis-tools iproute2 nftables)

# Telegram Desktop under Xvfb in a network namespace, driven with xdotool, screenshots
# with xwd + ImageMagick (tests/e2e/test_tdesktop.py, tests/edge_app/test_tdesktop_patch.py).
# Debian packages; run as root.
tdesktop:
	test -x /usr/bin/telegram-desktop -a -x /usr/bin/Xvfb -a -x /usr/bin/xdotool -a -x /usr/bin/xwd \
		-a -x /usr/bin/convert -a -x /usr/sbin/ip \
		|| (apt-get update && apt-get install -y telegram-desktop xvfb xdotool x11-apps imagemagick iproute2)

# The web client (Web K) built from the copy the tests use (docs/webclient.md): unpacked
# and built outside the repository, cached by its contents (a machine builds it once, for
# minutes; later runs take seconds). tests/e2e/test_webclient.py serves this build.
WEBCLIENT_ARCHIVE ?= $(abspath ../shared/clients/tweb-eb57231de.tar.zst)
WEBCLIENT_CACHE ?= $(HOME)/.cache/telesrv-webclient
webclient: venv
	test -x /usr/bin/zstd || (apt-get update && apt-get install -y zstd)
	test -d $(WEBCLIENT_CACHE)/src/tweb-eb57231de || (mkdir -p $(WEBCLIENT_CACHE)/src \
		&& tar --zstd -xf $(WEBCLIENT_ARCHIVE) -C $(WEBCLIENT_CACHE)/src)
	TELESRV_WEBCLIENT_DIR=$(WEBCLIENT_CACHE) $(BIN)/python manage.py webclient build \
		--src $(WEBCLIENT_CACHE)/src/tweb-eb57231de
