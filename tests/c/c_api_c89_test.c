/* The C API headers compile as strict C89 (ISO C90, -pedantic-errors): a C
 * program of any age can include them. Checks a few calls at run time. */
#include <stdio.h>
#include <string.h>

#include "minflow/c/c_api.h"

int main(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  int ok = MF_GetCode(s) == MF_OK && MF_GraphNumOperations(g) == 0 &&
           strlen(MF_Version()) > 0 && MF_DataTypeSize(MF_FLOAT) == 4;
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
  if (!ok) {
    fprintf(stderr, "%s:%d: C89 smoke check failed\n", __FILE__, __LINE__);
    return 1;
  }
  printf("c_api_c89_test: OK\n");
  return 0;
}
