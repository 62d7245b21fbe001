# orchd: GNU make, no configure step.  Libraries are found with pkg-config.
#
#	make			build/orchd, build/confd, build/spawnerd,
#				build/stored,
#				build/gatewayd, build/reaperd, build/runtimed,
#				build/orchctl
#	make check		ASan+UBSan build in build/check, then every test
#	make install		DESTDIR, PREFIX
#	make install-user	the _orchd user and its directories (root)
#	make install-systemd	orchd.service, installed and enabled (root)
#	make demo		see README.md
#	make deb		build/deb/orchd_VERSION_amd64.deb (debian/)

PREFIX		?= /usr/local
SBINDIR		?= $(PREFIX)/sbin
LIBEXECDIR	?= $(PREFIX)/libexec/orchd
MANDIR		?= $(PREFIX)/share/man
EXAMPLEDIR	?= $(PREFIX)/share/examples/orchd
SYSTEMDUNITDIR	?= /etc/systemd/system
DESTDIR		?=

BUILD		?= build
CC		?= cc
YACC		 = byacc
PKG_CONFIG	?= pkg-config

PKGS		 = libevent libtls libbsd-overlay sqlite3 jansson libseccomp \
		   libnghttp2
PKG_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS	:= $(shell $(PKG_CONFIG) --libs $(PKGS))

# the parent's own list: no libtls, so no libssl or libcrypto mapped as
# root (gatewayd -n checks TLS keypairs for it) and no sqlite; libseccomp
# for its own filter; jansson for the operator's registry auth file
# alone (orchd/regauth.c): the parent reads no JSON from a child
ORCHD_PKGS	 = libevent libbsd-overlay jansson libseccomp
ORCHD_LIBS	:= $(shell $(PKG_CONFIG) --libs $(ORCHD_PKGS))

# make STATIC=1: every daemon (not orchctl) linked statically, as
# position independent executables.  Each then maps its own copy of the
# parts of libc it calls instead of all of libc.so: less RSS, but more
# memory that is nobody else's, and a library's security fix needs a
# rebuild; see README.md and bench/README.md.  The parent then reads
# users and groups from /etc/passwd and /etc/group (orchd/users.c).
# libbsd comes first: libtls carries a getprogname of its own.

STATIC		?=
ifneq ($(STATIC),)
STATIC_LDFLAGS	 = -static-pie
STATIC_PKG	 = --static
CPPFLAGS	+= -DORCHD_STATIC
ORCHD_LIBS	:= $(shell $(PKG_CONFIG) --libs --static libbsd-overlay \
		    libevent jansson libseccomp)
endif
child_libs	 = $(shell $(PKG_CONFIG) --libs $(STATIC_PKG) libbsd-overlay $(1))
STORE_LIBS	:= $(call child_libs,libevent sqlite3 jansson libseccomp)
# the gate's verifier hashes passwords with libcrypt (bcrypt, yescrypt);
# its cache keys are libmd's SHA-256
GATEWAY_LIBS	:= $(call child_libs,libevent libtls libcrypto jansson libseccomp \
		    libnghttp2 libmd libcrypt)
REAPER_LIBS	:= $(call child_libs,libevent jansson libseccomp)
# confd: the parser, its filter, and the packing of workloads
CONFD_LIBS	:= $(call child_libs,libevent jansson libseccomp)
# the spawner: root and unfiltered, so it maps the least: its channels
# on libevent, no jansson, no libseccomp
SPAWNER_LIBS	:= $(call child_libs,libevent)
# runtimed hashes container definitions with libmd's SHA-256, and
# speaks TLS to a swarm manager over TCP: with libtls opened only then
# (runtimed/tlslib.c) by its soname, or linked in a static build
ifneq ($(STATIC),)
RUNTIME_LIBS	:= $(call child_libs,libevent libtls jansson libseccomp libmd)
else
RUNTIME_LIBS	:= $(call child_libs,libevent jansson libseccomp libmd)
LIBTLS_SONAME	:= $(shell objdump -p "$$($(CC) -print-file-name=libtls.so)" \
		    2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
ifeq ($(LIBTLS_SONAME),)
$(error cannot find the soname of libtls.so: is libtls-dev installed?)
endif
$(BUILD)/obj/runtimed/tlslib.o: CPPFLAGS += -DORCHD_LIBTLS='"$(LIBTLS_SONAME)"'
endif
# acmed: libtls to the ACME server, libcrypto for its keys, JWS and CSRs
ACME_LIBS	:= $(call child_libs,libevent libtls libcrypto jansson libseccomp)
# notifyd: libtls to the webhooks' receivers, libcrypto for HMAC
NOTIFY_LIBS	:= $(call child_libs,libevent libtls libcrypto jansson libseccomp)
# asked for only when a unit test is linked: tools/deps.sh build has no cmocka
CMOCKA_LIBS	 = $(shell $(PKG_CONFIG) --libs cmocka)

WARNINGS	 = -Wall -Wextra -Werror -Wstrict-prototypes \
		   -Wmissing-prototypes -Wmissing-declarations -Wshadow \
		   -Wpointer-arith -Wsign-compare -Wno-unused-parameter
OPTFLAGS	?= -O2 -g
SANFLAGS	?=
CFLAGS		?=
CPPFLAGS	+= -D_GNU_SOURCE -Icommon \
		   -DLIBEXECDIR=\"$(LIBEXECDIR)\"
# each function and object in a section of its own, so that the link
# (--gc-sections) leaves out what a program never calls of libcommon's
# objects: fewer pages of text each process maps (the spawner's halves)
SECTFLAGS	 = -ffunction-sections -fdata-sections
ALL_CFLAGS	 = $(OPTFLAGS) $(SANFLAGS) $(SECTFLAGS) $(WARNINGS) $(CPPFLAGS) \
		   $(PKG_CFLAGS) $(CFLAGS)
# each program maps only the libraries it calls: the store no libtls,
# the parent no sqlite, the reaper neither, the spawner only libevent
LDFLAGS		+= $(SANFLAGS) -Wl,--as-needed -Wl,--gc-sections

OBJ		 = $(BUILD)/obj

# Each program's sources, listed as relayd/Makefile lists SRCS: a new
# file is added here.  What two programs share lives in common/ and is
# linked from libcommon; no program borrows an object from another's
# folder, and no folder includes another's headers.
# the HTTP/1.1 parser, in libcommon, and linked alone by the fuzz targets
HTTP_SRCS	 = http.c http_chunked.c http_head.c http_ser.c
COMMON_SRCS	 = $(addprefix common/, \
		   argv.c budget.c cause.c cfgrecv.c child.c conf.c conf_wire.c \
		   deps.c errpage.c event.c maint.c \
		   event_json.c gate.c hashtab.c htpasswd.c $(HTTP_SRCS) https.c \
		   ignore.c imsg.c log.c \
		   merge.c notify_ev.c privdrop.c proc.c procstat.c sandbox.c \
		   sched.c sched_wl.c selfconn.c siphash.c spawnexec.c timer.c \
		   vdopen.c \
		   wlimits.c trust.c units.c urlsplit.c users.c util.c workload.c \
		   workload_check.c \
		   workload_fields.c workload_json.c workload_pack.c \
		   workload_print.c workload_zip.c \
		   workload_wire.c)
# the configuration's parser: confd/parse.y and what its actions call,
# linked by the unit tests and the fuzz target without confd's main()
PARSE_SRCS	 = $(addprefix confd/, \
		   hostcheck.c inputs.c lex.c parse_acme.c parse_check.c \
		   parse_conf.c parse_gate.c parse_input.c parse_listen.c \
		   parse_limits.c parse_notify.c parse_page.c parse_sched.c \
		   parse_set.c \
		   printconf.c)
CONFD_SRCS	 = $(PARSE_SRCS) $(addprefix confd/, \
		   confd.c send.c)
ORCHD_SRCS	 = $(addprefix orchd/, \
		   acme_relay.c alogq.c apidef.c apihost.c apikey.c config.c \
		   config_delta.c \
		   confread.c confsame.c control.c depends.c hook_relay.c \
		   groupexpire.c identity.c keycheck.c listen.c logfiles.c logs.c \
		   notify.c \
		   instances.c labelfacts.c labels.c orchd.c owner.c \
		   parent_api.c policy.c \
		   policy_net.c regauth.c reload.c request.c \
		   sockact.c sockdiag.c spawn.c spawner.c statedir.c swarmcreds.c \
		   usecheck.c voldir.c api_listen.c pdef.c)
SPAWNER_SRCS	 = $(addprefix spawnerd/, \
		   cglimit.c cgroup.c check.c exec.c pss.c spawnerd.c volrm.c)
STORE_SRCS	 = $(addprefix stored/, \
		   store.c store_check.c store_db.c store_moved.c store_open.c \
		   store_queue.c store_schema.c store_sql.c store_sync.c)
GATEWAY_SRCS	 = $(addprefix gatewayd/, \
		   accesslog.c accesslog_fmt.c acme_http.c acme_recv.c \
		   acme_store.c activity.c alogkeep.c api.c api_access.c \
		   api_auth.c api_group.c hostsample.c \
		   api_conf.c api_conn.c api_define.c api_events.c api_json.c \
		   api_ops.c api_route.c bufio.c clienthello.c conn.c \
		   conn_timer.c drain.c pages.c \
		   filter.c gate.c gate_answer.c gate_basic.c gate_cache.c \
		   gate_conf.c gate_request.c gate_verify.c \
		   gatewayd.c h2.c h2up.c herd.c ignore.c instance.c \
		   listener.c metrics.c metrics_acme.c metrics_add.c \
		   metrics_alog.c metrics_notify.c metrics_procs.c \
		   metrics_budget.c metrics_sum.c metrics_top.c prom.c proxy.c \
		   route.c \
		   redirect.c route_apply.c serve.c state_early.c tcp.c tls.c \
		   tls_check.c \
		   tlshello.c ui.c ui_sess.c wake.c wldef.c wlmaint.c wlref.c)
REAPER_SRCS	 = $(addprefix reaperd/, \
		   alring.c authlim.c hosthist.c policy.c reaperd.c ticklist.c \
		   uisess.c)
RUNTIME_SRCS	 = $(addprefix runtimed/, \
		   admit.c backoff.c budget.c busy.c command.c counts.c \
		   docker_client.c docker_events.c docker_image.c docker_react.c \
		   docker_logs.c docker_network.c docker_path.c docker_pull.c \
		   docker_purge.c docker_reconcile.c docker_spec.c docker_stats.c \
		   driver_docker.c driver_process.c driver_swarm.c \
		   groupwake.c job.c labels.c labeltab.c \
		   lc_report.c lifecycle.c lifecycle_apply.c liveness.c maint.c \
		   owner.c ready.c replace.c restore.c runtimed.c schedule.c \
		   swarm_agree.c swarm_spec.c tlslib.c warmuntil.c wlcause.c)
ACME_SRCS	 = $(addprefix acmed/, \
		   acmed.c cert.c jws.c order.c)
NOTIFY_SRCS	 = $(addprefix notifyd/, \
		   deliver.c notifyd.c)
ORCHCTL_SRCS	 = $(addprefix orchctl/, \
		   complete.c compose.c compose_fs.c compose_svc.c ctlcall.c \
		   define.c group.c import.c maint.c orchctl.c output.c \
		   parser.c ytree.c)

# a file in a program's folder that no list names would be left out of
# the link without a word, or linked only by a unit test
UNLISTED	:= $(filter-out $(COMMON_SRCS) $(ORCHD_SRCS) $(CONFD_SRCS) \
		    $(SPAWNER_SRCS) \
		    $(STORE_SRCS) $(GATEWAY_SRCS) $(REAPER_SRCS) \
		    $(RUNTIME_SRCS) $(ACME_SRCS) $(NOTIFY_SRCS) \
		    $(ORCHCTL_SRCS),$(wildcard \
		    common/*.c orchd/*.c confd/*.c spawnerd/*.c stored/*.c \
		    gatewayd/*.c \
		    reaperd/*.c runtimed/*.c acmed/*.c notifyd/*.c orchctl/*.c))
ifneq ($(UNLISTED),)
$(error $(UNLISTED): in no program's source list (Makefile))
endif

objs		 = $(patsubst %.c,$(OBJ)/%.o,$(1))

COMMON_OBJS	 = $(call objs,$(COMMON_SRCS))
ORCHD_OBJS	 = $(call objs,$(ORCHD_SRCS))
CONFD_OBJS	 = $(call objs,$(CONFD_SRCS)) $(OBJ)/confd/parse.o
SPAWNER_OBJS	 = $(call objs,$(SPAWNER_SRCS))
PARSE_OBJS	 = $(OBJ)/confd/parse.o $(call objs,$(PARSE_SRCS))
STORE_OBJS	 = $(call objs,$(STORE_SRCS))
GATEWAY_OBJS	 = $(call objs,$(GATEWAY_SRCS)) $(OBJ)/gatewayd/ui_assets.o
REAPER_OBJS	 = $(call objs,$(REAPER_SRCS))
RUNTIME_OBJS	 = $(call objs,$(RUNTIME_SRCS))
ACME_OBJS	 = $(call objs,$(ACME_SRCS))
NOTIFY_OBJS	 = $(call objs,$(NOTIFY_SRCS))
ORCHCTL_OBJS	 = $(call objs,$(ORCHCTL_SRCS))
LIBCOMMON	 = $(BUILD)/libcommon.a

PROGS		 = $(BUILD)/orchd $(BUILD)/confd $(BUILD)/spawnerd \
		   $(BUILD)/stored \
		   $(BUILD)/gatewayd $(BUILD)/reaperd $(BUILD)/runtimed \
		   $(BUILD)/acmed $(BUILD)/notifyd $(BUILD)/orchctl

# Unit tests: regress/unit/test_NAME.c, linked with libcommon and the
# objects named in TEST_NAME_OBJS (the program's files under test, never
# its main()).
UNIT_SRCS	:= $(wildcard regress/unit/test_*.c)
UNIT_TESTS	:= $(patsubst regress/unit/%.c,$(BUILD)/regress/%,$(UNIT_SRCS))
TEST_parse_OBJS	 = $(PARSE_OBJS)
-include regress/unit/tests.mk

MANS		 = man/orchd.8 man/orchd.conf.5 man/orchctl.8 man/orchd-api.7 \
		   man/orchd-security.7 man/orchd-workload.7

.PHONY: all check unit regress install install-user install-systemd clean demo
.PHONY: lint fuzz bench deb
.PHONY: FORCE
.SUFFIXES:

all: $(PROGS)

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# parse.h, the tokens' numbers, for the lexer (confd/lex.c)
$(OBJ)/confd/parse.c $(OBJ)/confd/parse.h: confd/parse.y
	@mkdir -p $(dir $@)
	$(YACC) -d -o $(OBJ)/confd/parse.c $<

$(OBJ)/confd/lex.o: confd/lex.c $(OBJ)/confd/parse.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -I$(OBJ)/confd -MMD -MP -c -o $@ $<

$(OBJ)/confd/parse.o: $(OBJ)/confd/parse.c
	$(CC) $(ALL_CFLAGS) -Iconfd -Wno-missing-prototypes \
	    -Wno-missing-declarations -Wno-shadow -MMD -MP -c -o $@ $<

# the status page's files under ui/, compiled into gatewayd (ui.c)
UI_FILES	:= $(shell find ui -type f 2>/dev/null | LC_ALL=C sort)

$(OBJ)/gatewayd/ui_assets.c: tools/uiassets.sh $(UI_FILES)
	@mkdir -p $(dir $@)
	sh tools/uiassets.sh ui >$@.tmp
	mv $@.tmp $@

$(OBJ)/gatewayd/ui_assets.o: $(OBJ)/gatewayd/ui_assets.c gatewayd/ui.h
	$(CC) $(ALL_CFLAGS) -Igatewayd -c -o $@ $<

$(LIBCOMMON): $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# One link rule for every program: $(1) is its name, $(2) the prefix of
# its _OBJS and _LIBS, $(3) its link flags beyond LDFLAGS.  The daemons
# take STATIC_LDFLAGS; orchctl, run by hand, is never static.
define link_program
$$(BUILD)/$(1): $$($(2)_OBJS) $$(LIBCOMMON)
	$$(CC) $$(LDFLAGS) $(3) -o $$@ $$^ $$($(2)_LIBS)
endef

# libyaml: orchctl import reads Compose files, on the client side only
ORCHCTL_LIBS	 = $(PKG_LIBS) $(shell $(PKG_CONFIG) --libs yaml-0.1)

$(eval $(call link_program,orchd,ORCHD,$$(STATIC_LDFLAGS)))
$(eval $(call link_program,confd,CONFD,$$(STATIC_LDFLAGS)))
$(eval $(call link_program,spawnerd,SPAWNER,$$(STATIC_LDFLAGS)))
$(eval $(call link_program,stored,STORE,$$(STATIC_LDFLAGS)))
$(eval $(call link_program,gatewayd,GATEWAY,$$(STATIC_LDFLAGS)))
$(eval $(call link_program,reaperd,REAPER,$$(STATIC_LDFLAGS)))
$(eval $(call link_program,runtimed,RUNTIME,$$(STATIC_LDFLAGS)))
$(eval $(call link_program,acmed,ACME,$$(STATIC_LDFLAGS)))
$(eval $(call link_program,notifyd,NOTIFY,$$(STATIC_LDFLAGS)))
$(eval $(call link_program,orchctl,ORCHCTL,))

# LIBEXECDIR is compiled into the parent, which looks for its helpers
# there.  Its value is kept in a stamp, rewritten only when it changes:
# "make install PREFIX=/opt/orchd" after a plain make rebuilds the parent
# rather than install one that looks in /usr/local/libexec/orchd.
LIBEXEC_STAMP	 = $(BUILD)/libexecdir

$(LIBEXEC_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(LIBEXECDIR)' | cmp -s - $@ || echo '$(LIBEXECDIR)' >$@

$(OBJ)/orchd/orchd.o: $(LIBEXEC_STAMP)

FORCE:

.SECONDEXPANSION:
$(BUILD)/regress/%: regress/unit/%.c $(LIBCOMMON) $$(TEST_$$(subst test_,,$$*)_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -Wno-missing-declarations \
	    -o $@ $< $(TEST_$(subst test_,,$*)_OBJS) $(LIBCOMMON) \
	    $(PKG_LIBS) $(CMOCKA_LIBS) $(LDFLAGS)

# the workload and raw client of the end-to-end tests
$(BUILD)/regress/testhttp: regress/e2e/testhttp.c
	@mkdir -p $(dir $@)
	$(CC) $(OPTFLAGS) -Wall -Wextra -Werror -o $@ $<

# the sandbox's test program: sandbox_enter() and then a call, allowed
# or not (regress/e2e/sandbox.sh)
$(BUILD)/regress/sandboxtest: regress/e2e/sandboxtest.c $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBCOMMON) $(PKG_LIBS) $(LDFLAGS)

unit: $(UNIT_TESTS) $(BUILD)/regress/testhttp $(BUILD)/regress/sandboxtest

# make check: a sanitizer build of everything, then every test.  The
# summary line at the end counts unit test binaries and end-to-end cases.
# The sandbox is on: ORCHD_SANITIZE lets the sanitizers' reports through.
# TESTS="wake test_parse" runs only the tests named (regress/README).
# A STATIC=1 build beside it is for regress/e2e/static.sh (its linker's
# warnings about dlopen and getaddrinfo, which the daemons never reach
# that way, are kept in build/check-static.log).
check:
	$(MAKE) BUILD=build/check \
	    SANFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -DORCHD_SANITIZE" \
	    OPTFLAGS="-O1 -g" all unit
	@echo "make BUILD=build/check-static STATIC=1 all (regress/e2e/static.sh)"
	@$(MAKE) BUILD=build/check-static STATIC=1 OPTFLAGS="-O1 -g" all \
	    >build/check-static.log 2>&1 || \
	    { cat build/check-static.log; exit 1; }
	sh regress/run.sh build/check $(TESTS)

regress: check

lint:
	mandoc -Tlint -Wwarning $(MANS)

# Programs, helpers, man pages, and under share/examples the example
# configuration and the service files, told where the programs went:
# nothing into /etc.
install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBEXECDIR) \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
	    $(DESTDIR)$(MANDIR)/man8 \
	    $(DESTDIR)$(EXAMPLEDIR)
	install -m 0555 $(BUILD)/orchd $(BUILD)/orchctl $(DESTDIR)$(SBINDIR)
	install -m 0555 $(BUILD)/confd $(BUILD)/spawnerd $(BUILD)/stored \
	    $(BUILD)/gatewayd $(BUILD)/reaperd $(BUILD)/runtimed $(BUILD)/acmed \
	    $(BUILD)/notifyd \
	    $(DESTDIR)$(LIBEXECDIR)
	install -m 0444 man/orchd.conf.5 $(DESTDIR)$(MANDIR)/man5
	install -m 0444 man/orchd-api.7 man/orchd-security.7 \
	    man/orchd-workload.7 $(DESTDIR)$(MANDIR)/man7
	install -m 0444 man/orchd.8 man/orchctl.8 $(DESTDIR)$(MANDIR)/man8
	install -m 0444 etc/orchd.conf LICENSE $(DESTDIR)$(EXAMPLEDIR)
	sed 's|/usr/local/sbin|$(SBINDIR)|g' etc/orchd.service \
	    >$(DESTDIR)$(EXAMPLEDIR)/orchd.service
	chmod 0444 $(DESTDIR)$(EXAMPLEDIR)/orchd.service
	install -d $(DESTDIR)$(EXAMPLEDIR)/logrotate.d
	sed 's|/usr/local/sbin|$(SBINDIR)|g' etc/logrotate.d/orchd \
	    >$(DESTDIR)$(EXAMPLEDIR)/logrotate.d/orchd
	chmod 0444 $(DESTDIR)$(EXAMPLEDIR)/logrotate.d/orchd

# Once, as root: the unprivileged user (made only if missing), the
# children's empty chroot, and the directories of orchd.conf's defaults.
# DESTDIR applies to the directories alone.
ORCHD_USER	?= _orchd
install-user:
	getent passwd $(ORCHD_USER) >/dev/null || \
	    useradd --system --user-group --home-dir /var/empty \
	    --shell /usr/sbin/nologin $(ORCHD_USER)
	install -d -o root -g root -m 0755 $(DESTDIR)/var/empty
	install -d -o $(ORCHD_USER) -g "$$(id -g $(ORCHD_USER))" -m 0700 \
	    $(DESTDIR)/var/lib/orchd
	install -d -o root -g root -m 0755 $(DESTDIR)/var/log/orchd

# The unit, told where the programs went, into SYSTEMDUNITDIR, and enabled
# where systemd runs (not with a DESTDIR).  The unit's StateDirectory=,
# RuntimeDirectory= and LogsDirectory= make the directories; the user is
# make install-user's.
install-systemd:
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|/usr/local/sbin|$(SBINDIR)|g' etc/orchd.service \
	    >$(DESTDIR)$(SYSTEMDUNITDIR)/orchd.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/orchd.service
	@if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null && \
	    [ -d /run/systemd/system ]; then \
		echo "systemctl daemon-reload && systemctl enable orchd"; \
		systemctl daemon-reload && systemctl enable orchd; \
	else \
		echo "systemd does not run here: where it does, run"; \
		echo "	systemctl daemon-reload && systemctl enable --now orchd"; \
	fi

demo: all
	sh tools/demo.sh $(DEMO_ARGS)

bench:
	bash bench/run.sh $(BENCH_ARGS)

# The Debian package (debian/, which builds in build/debian with /usr's
# paths), by dpkg-buildpackage, whose files land in the parent directory
# and are moved to build/deb; then lintian, which must find nothing.
# What it needs: sh tools/deps.sh deb.
DEB_VERSION	 = $(shell dpkg-parsechangelog -S Version 2>/dev/null)
DEB_FILES	 = $(addprefix orchd_$(DEB_VERSION)_amd64.,deb buildinfo changes) \
		   orchd-dbgsym_$(DEB_VERSION)_amd64.deb
deb:
	dpkg-buildpackage -us -uc -b
	@mkdir -p build/deb
	cd .. && mv $(DEB_FILES) $(CURDIR)/build/deb/
	lintian --fail-on error,warning --info \
	    build/deb/orchd_$(DEB_VERSION)_amd64.deb
	@echo "build/deb/orchd_$(DEB_VERSION)_amd64.deb"

clean:
	rm -rf build

# make fuzz: the libFuzzer targets, built with clang into build/fuzz and
# run FUZZ_SECONDS each.  Seeds are read from regress/fuzz/corpus/NAME;
# what libFuzzer finds goes to build/fuzz/corpus/NAME, so a run never
# changes the tree.  A crash stops the run with the input in build/fuzz.
FUZZ_CC		?= clang
FUZZ_SECONDS	?= 60
FUZZ_DIR	 = build/fuzz
FUZZ_TARGETS	 = http chunked config imsg h2 parent_def parent_acme \
		   clienthello htpasswd parent_conf procstat sched
FUZZ_CFLAGS	 = -g -O1 -fsanitize=fuzzer,address,undefined \
		   -fno-sanitize-recover=undefined $(CPPFLAGS) -Iorchd -Iconfd \
		   -I$(FUZZ_DIR) \
		   $(PKG_CFLAGS)
FUZZ_SRCS_http	 = regress/fuzz/fuzz_http.c $(addprefix common/,$(HTTP_SRCS))
FUZZ_SRCS_chunked = $(FUZZ_SRCS_http)
FUZZ_DEFS_chunked = -DFUZZ_CHUNKED_ONLY
FUZZ_SRCS_config = regress/fuzz/fuzz_config.c $(FUZZ_DIR)/parse.c \
		   $(PARSE_SRCS) common/hashtab.c \
		   common/units.c common/workload.c common/workload_json.c \
		   common/workload_check.c common/workload_fields.c common/errpage.c \
		   common/sched.c common/sched_wl.c \
		   common/log.c common/trust.c common/ignore.c common/deps.c \
		   common/argv.c common/util.c common/budget.c common/conf.c \
		   common/htpasswd.c common/gate.c common/users.c \
		   common/workload_wire.c common/workload_pack.c common/workload_zip.c \
		   common/urlsplit.c common/notify_ev.c common/timer.c \
		   common/wlimits.c common/workload_print.c common/siphash.c
FUZZ_SRCS_imsg	 = regress/fuzz/fuzz_imsg.c common/imsg.c
FUZZ_SRCS_h2	 = regress/fuzz/fuzz_h2.c gatewayd/h2.c \
		   $(addprefix common/,$(HTTP_SRCS)) \
		   gatewayd/bufio.c
FUZZ_LIBS_h2	 = -lnghttp2
FUZZ_SRCS_parent_def = regress/fuzz/fuzz_parent_def.c orchd/apidef.c \
		   orchd/policy.c orchd/policy_net.c common/trust.c \
		   orchd/pdef.c common/workload_zip.c common/workload_pack.c \
		   orchd/labelfacts.c common/users.c \
		   common/workload.c common/workload_check.c \
		   common/workload_fields.c common/errpage.c common/workload_wire.c \
		   common/sched.c common/sched_wl.c common/gate.c common/htpasswd.c \
		   common/ignore.c common/units.c common/log.c common/util.c \
		   common/deps.c common/hashtab.c common/argv.c
# the parent's taking of confd's global settings
FUZZ_SRCS_parent_conf = regress/fuzz/fuzz_parent_conf.c common/conf_wire.c \
		   common/conf.c common/workload.c common/workload_check.c \
		   common/workload_zip.c common/workload_wire.c common/workload_pack.c \
		   common/workload_fields.c common/errpage.c common/ignore.c common/units.c \
		   common/sched.c common/sched_wl.c \
		   common/log.c common/util.c common/deps.c common/hashtab.c \
		   common/argv.c common/htpasswd.c common/gate.c
FUZZ_SRCS_clienthello = regress/fuzz/fuzz_clienthello.c gatewayd/clienthello.c
# the parent's checks of acmed's messages, the rest of it stubbed
FUZZ_SRCS_parent_acme = regress/fuzz/fuzz_parent_acme.c orchd/acme_relay.c \
		   orchd/pdef.c common/workload_zip.c common/workload_pack.c \
		   common/workload.c common/workload_check.c \
		   common/workload_fields.c common/errpage.c common/workload_wire.c \
		   common/sched.c common/sched_wl.c common/gate.c common/htpasswd.c \
		   common/ignore.c common/units.c common/util.c common/deps.c \
		   common/argv.c \
		   common/hashtab.c \
		   common/log.c
FUZZ_SRCS_htpasswd = regress/fuzz/fuzz_htpasswd.c common/htpasswd.c \
		   common/gate.c common/ignore.c common/workload.c \
		   common/workload_fields.c common/errpage.c common/workload_check.c \
		   common/sched.c \
		   common/units.c common/log.c common/util.c common/deps.c \
		   common/hashtab.c common/argv.c
FUZZ_SRCS_procstat = regress/fuzz/fuzz_procstat.c common/procstat.c
# the windows and wakes the API may send (common/sched.c)
FUZZ_SRCS_sched	 = regress/fuzz/fuzz_sched.c common/sched.c common/units.c
FUZZ_PROGS	 = $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))

$(FUZZ_DIR)/parse.c: confd/parse.y
	@mkdir -p $(dir $@)
	$(YACC) -d -o $@ $<

$(FUZZ_DIR)/fuzz_%: $$(FUZZ_SRCS_$$*) $(wildcard common/*.h) \
		   gatewayd/gateway.h gatewayd/h2.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_DEFS_$*) -Wno-unused-function \
	    -o $@ $(FUZZ_SRCS_$*) $(PKG_LIBS) $(FUZZ_LIBS_$*)

fuzz: $(FUZZ_PROGS)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_DIR)/corpus/$$t || exit 1; \
		echo "== fuzz_$$t: $(FUZZ_SECONDS)s"; \
		(cd $(FUZZ_DIR) && ./fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
		    -close_fd_mask=2 -print_final_stats=1 corpus/$$t \
		    ../../regress/fuzz/corpus/$$t) 2>&1 | \
		    grep -E '^(stat::|#[0-9]+[[:space:]]+DONE|==[0-9]+==|SUMMARY)' ; \
		[ -z "$$(ls $(FUZZ_DIR)/crash-* $(FUZZ_DIR)/leak-* \
		    $(FUZZ_DIR)/timeout-* 2>/dev/null)" ] || \
		    { echo "fuzz_$$t: crash input in $(FUZZ_DIR)"; exit 1; }; \
	done

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
