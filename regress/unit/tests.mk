# the HTTP parser is common/http*.c, in libcommon; its tests share
# regress/unit/httptest.c
TEST_http_OBJS = $(OBJ)/regress/unit/httptest.o
TEST_chunked_OBJS = $(OBJ)/regress/unit/httptest.o
# the tests' own helpers: kept, not removed as intermediate files
.SECONDARY: $(OBJ)/regress/unit/httptest.o $(OBJ)/regress/unit/storetest.o
TEST_reaper_OBJS = $(OBJ)/reaperd/policy.o $(OBJ)/reaperd/ticklist.o
TEST_alogq_OBJS = $(OBJ)/orchd/alogq.o
TEST_store_OBJS = $(OBJ)/stored/store_db.o $(OBJ)/stored/store_open.o $(OBJ)/stored/store_sql.o \
		   $(OBJ)/stored/store_queue.o \
		   $(OBJ)/stored/store_schema.o $(OBJ)/regress/unit/storetest.o
TEST_store_queue_OBJS = $(TEST_store_OBJS)
TEST_store_moved_OBJS = $(TEST_store_OBJS) $(OBJ)/stored/store_moved.o
TEST_api_OBJS = $(OBJ)/gatewayd/api_route.o $(OBJ)/gatewayd/api_json.o \
		   $(OBJ)/gatewayd/prom.o $(OBJ)/gatewayd/api_auth.o \
		   $(OBJ)/stored/store_db.o $(OBJ)/stored/store_open.o $(OBJ)/stored/store_sql.o \
		   $(OBJ)/stored/store_schema.o \
		   $(OBJ)/gatewayd/metrics_add.o
TEST_docker_OBJS = $(OBJ)/runtimed/docker_spec.o $(OBJ)/runtimed/docker_image.o
$(BUILD)/regress/test_docker: LDFLAGS += $(RUNTIME_LIBS)
TEST_swarm_OBJS = $(OBJ)/runtimed/swarm_spec.o $(OBJ)/runtimed/docker_spec.o
$(BUILD)/regress/test_swarm: LDFLAGS += $(RUNTIME_LIBS)
TEST_cgroup_OBJS = $(OBJ)/spawnerd/cgroup.o $(OBJ)/spawnerd/cglimit.o
TEST_apikey_OBJS = $(OBJ)/orchd/apikey.o $(OBJ)/orchd/confsame.o
TEST_authlim_OBJS = $(OBJ)/reaperd/authlim.o
TEST_uisess_OBJS = $(OBJ)/reaperd/uisess.o
TEST_alring_OBJS = $(OBJ)/reaperd/alring.o
TEST_hosthist_OBJS = $(OBJ)/reaperd/hosthist.o
TEST_uicookie_OBJS = $(OBJ)/gatewayd/ui_sess.o
# the parent's policy and its API handlers (orchd/parent_api.c, with link
# stubs)
TEST_policy_OBJS = $(OBJ)/orchd/policy.o $(OBJ)/orchd/policy_net.o \
		   $(OBJ)/orchd/parent_api.o $(OBJ)/orchd/apihost.o \
		   $(OBJ)/orchd/groupexpire.o \
		   $(OBJ)/orchd/apidef.o \
		   $(OBJ)/orchd/depends.o $(OBJ)/orchd/request.o \
		   $(OBJ)/orchd/labelfacts.o $(OBJ)/orchd/pdef.o
# the parent's definitions kept small at rest
TEST_pdef_OBJS = $(OBJ)/orchd/pdef.o
# the parent's requests in flight, relaying answers to whoever asked
TEST_reply_OBJS = $(OBJ)/orchd/request.o
# orchd -nv: the printer, with the parser it prints for
TEST_printconf_OBJS = $(PARSE_OBJS)
# "ignore" rules as the gateway matches requests against them
TEST_filter_OBJS = $(OBJ)/gatewayd/filter.o
# restart delays and crash-loop backoff: the arithmetic alone
TEST_backoff_OBJS = $(OBJ)/runtimed/backoff.o
# the registry logins the parent reads for runtimed
TEST_regauth_OBJS = $(OBJ)/orchd/regauth.o $(OBJ)/orchd/apikey.o \
		    $(OBJ)/orchd/confsame.o
TEST_accesslog_OBJS = $(OBJ)/gatewayd/accesslog_fmt.o
# the store's "checking" overlay after a restart
TEST_storecheck_OBJS = $(OBJ)/stored/store_check.o
# runtimed's hold of the store's restore, the lifecycle stubbed
TEST_restore_OBJS = $(OBJ)/runtimed/restore.o
# the memory budget's decisions, as runtimed makes them
TEST_admit_OBJS = $(OBJ)/runtimed/admit.o
# the routes runtimed may give the gateway, a swarm's nodes in turn
TEST_instance_OBJS = $(OBJ)/gatewayd/instance.o
$(BUILD)/regress/test_instance: LDFLAGS += $(GATEWAY_LIBS)
# the API's volume directories, made at each wake without following links
TEST_voldir_OBJS = $(OBJ)/orchd/voldir.o
# the kernel's list of listeners, read for the listener check
TEST_sockdiag_OBJS = $(OBJ)/orchd/sockdiag.o
# the spawner's own check of a request to start a workload
TEST_spawner_OBJS = $(OBJ)/spawnerd/check.o $(OBJ)/spawnerd/volrm.o
# the parent's reading of a packed definition from a child
TEST_apidef_OBJS = $(OBJ)/orchd/apidef.o $(OBJ)/orchd/policy.o \
		   $(OBJ)/orchd/policy_net.o $(OBJ)/orchd/labelfacts.o \
		   $(OBJ)/orchd/pdef.o
TEST_clienthello_OBJS = $(OBJ)/gatewayd/clienthello.o
# ACME: acmed's JWS, CSR and certificates, and the parent's checks of
# what acmed sends (orchd/acme_relay.c)
TEST_acme_OBJS = $(OBJ)/orchd/acme_relay.o $(OBJ)/acmed/jws.o \
		   $(OBJ)/acmed/cert.o $(OBJ)/orchd/hook_relay.o $(OBJ)/orchd/pdef.o
$(BUILD)/regress/test_acme: LDFLAGS += $(ACME_LIBS)
TEST_acmehttp_OBJS = $(OBJ)/gatewayd/acme_http.o
# the gate: confd's htpasswd loader, the gateway's cache
TEST_htpasswd_OBJS = $(OBJ)/gatewayd/gate_cache.o
$(BUILD)/regress/test_htpasswd: LDFLAGS += -lmd
# the global settings between confd and the parent, with the parser
TEST_confwire_OBJS = $(PARSE_OBJS)
# the gateway's pages for its own answers
TEST_pages_OBJS = $(OBJ)/gatewayd/pages.o
$(BUILD)/regress/test_pages: LDFLAGS += $(GATEWAY_LIBS)
# notifyd: what addresses a webhook may reach (notifyd/deliver.c)
TEST_notify_OBJS = $(OBJ)/notifyd/deliver.o
$(BUILD)/regress/test_notify: LDFLAGS += $(NOTIFY_LIBS)
# orchctl import compose: the YAML reader and the mapping, with libyaml
TEST_compose_OBJS = $(OBJ)/orchctl/ytree.o $(OBJ)/orchctl/compose.o \
		   $(OBJ)/orchctl/compose_fs.o \
		   $(OBJ)/orchctl/compose_svc.o
$(BUILD)/regress/test_compose: LDFLAGS += $(shell $(PKG_CONFIG) --libs yaml-0.1)
