TEST_http_OBJS = $(OBJ)/gatewayd/http.o
TEST_reaper_OBJS = $(OBJ)/reaperd/policy.o
