/* PLACEHOLDER: CLI being written by a helper this session. */
#include <stdio.h>
#include "fovea/fovea.h"
int main(void) { printf("fovea %s\n", fovea_version()); return 0; }
