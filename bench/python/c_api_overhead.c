/* The C API's own costs, the reference for bench/python/session_overhead.py:
 * MF_SessionRun on a one-node graph (a scalar Const fetched), on a fed
 * Placeholder -> Identity, and building an N-node graph (a Placeholder and
 * a chain of N-1 AddV2s) with MF_NewOperation / MF_FinishOperation.
 * Usage: c_api_overhead [runs] [nodes]. Prints "name microseconds" lines. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "minflow/c/c_api.h"

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void Check(MF_Status* s, const char* what) {
  if (MF_GetCode(s) != MF_OK) {
    fprintf(stderr, "%s: %s\n", what, MF_Message(s));
    exit(1);
  }
}

static MF_Operation* Placeholder(MF_Graph* g, const char* name, MF_Status* s) {
  MF_OperationDescription* d = MF_NewOperation(g, "Placeholder", name);
  MF_SetAttrType(d, "dtype", MF_FLOAT);
  return MF_FinishOperation(d, s);
}

/* Best of five rounds of `runs` runs, in microseconds per run. */
static double TimeRuns(MF_Session* session, MF_Output* in, MF_Tensor** feed,
                       int nin, MF_Output out, int runs, MF_Status* s) {
  double best = 1e30;
  int round, i;
  for (round = 0; round < 5; ++round) {
    double start = Now(), us;
    for (i = 0; i < runs; ++i) {
      MF_Tensor* result = NULL;
      MF_SessionRun(session, NULL, in, feed, nin, &out, &result, 1, NULL, 0,
                    NULL, s);
      MF_DeleteTensor(result);
    }
    Check(s, "MF_SessionRun");
    us = (Now() - start) / runs * 1e6;
    if (us < best) best = us;
  }
  return best;
}

/* The same fed run through a callable (MF_SessionMakeCallable). */
static double TimeCallable(MF_Session* session, MF_Output* in, MF_Tensor** feed,
                           MF_Output out, int runs, MF_Status* s) {
  double best = 1e30;
  int round, i;
  int64_t handle = MF_SessionMakeCallable(session, in, 1, &out, 1, NULL, 0, s);
  Check(s, "MF_SessionMakeCallable");
  for (round = 0; round < 5; ++round) {
    double start = Now(), us;
    for (i = 0; i < runs; ++i) {
      MF_Tensor* result = NULL;
      MF_SessionRunCallable(session, handle, feed, 1, &result, 1, s);
      MF_DeleteTensor(result);
    }
    Check(s, "MF_SessionRunCallable");
    us = (Now() - start) / runs * 1e6;
    if (us < best) best = us;
  }
  MF_SessionReleaseCallable(session, handle, s);
  return best;
}

int main(int argc, char** argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 20000;
  int nodes = argc > 2 ? atoi(argv[2]) : 10000;
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Session* session;
  MF_Tensor* value;
  MF_Operation *c, *x, *id, *prev;
  MF_OperationDescription* d;
  MF_Output in, out;
  double start;
  int i;
  char name[32];

  /* One node: a scalar Const. */
  value = MF_AllocateTensor(MF_FLOAT, NULL, 0, sizeof(float), s);
  Check(s, "MF_AllocateTensor");
  *(float*)MF_TensorData(value) = 1.0f;
  d = MF_NewOperation(g, "Const", "c");
  MF_SetAttrType(d, "dtype", MF_FLOAT);
  MF_SetAttrTensor(d, "value", value, s);
  c = MF_FinishOperation(d, s);
  Check(s, "Const");
  /* A fed Placeholder and its Identity. */
  x = Placeholder(g, "x", s);
  Check(s, "Placeholder");
  d = MF_NewOperation(g, "Identity", "id");
  in.oper = x;
  in.index = 0;
  MF_AddInput(d, in);
  id = MF_FinishOperation(d, s);
  Check(s, "Identity");
  session = MF_NewSession(g, NULL, s);
  Check(s, "MF_NewSession");

  out.oper = c;
  out.index = 0;
  printf("run_const_us %.3f\n", TimeRuns(session, NULL, NULL, 0, out, runs, s));
  out.oper = id;
  printf("run_feed_us %.3f\n", TimeRuns(session, &in, &value, 1, out, runs, s));
  printf("run_feed_callable_us %.3f\n",
         TimeCallable(session, &in, &value, out, runs, s));
  MF_DeleteSession(session, s);
  MF_DeleteGraph(g);

  /* Building: x, then add_1 = x + x, add_i = add_{i-1} + x. */
  g = MF_NewGraph();
  start = Now();
  x = Placeholder(g, "x", s);
  Check(s, "Placeholder");
  prev = x;
  for (i = 1; i < nodes; ++i) {
    MF_Output a, b;
    snprintf(name, sizeof name, "add_%d", i);
    d = MF_NewOperation(g, "AddV2", name);
    a.oper = prev;
    a.index = 0;
    b.oper = x;
    b.index = 0;
    MF_AddInput(d, a);
    MF_AddInput(d, b);
    prev = MF_FinishOperation(d, s);
    Check(s, "AddV2");
  }
  printf("build_us %.1f\n", (Now() - start) * 1e6);
  printf("build_nodes %d\n", MF_GraphNumOperations(g));
  MF_DeleteGraph(g);
  MF_DeleteTensor(value);
  MF_DeleteStatus(s);
  return 0;
}
