TEST_http_OBJS = $(OBJ)/gatewayd/http.o
TEST_reaper_OBJS = $(OBJ)/reaperd/policy.o
TEST_store_OBJS = $(OBJ)/orchd/store_db.o
