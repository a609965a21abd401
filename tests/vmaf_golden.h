/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Reading libvmaf's recorded values from the golden cases' expected.json
 * (../shared/testdata/vif.tar.xz, README inside), shared by the quality tests. */
#ifndef FOVEA_TEST_VMAF_GOLDEN_H
#define FOVEA_TEST_VMAF_GOLDEN_H

#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

/* features.<set>.<what>.<name> ("per_frame" or "pooled") of the code path the C
 * reference must match: the plain-C run (other_code_paths_that_differ.c_only*)
 * where libvmaf's SIMD paths disagree, else the default run. */
static inline const cJSON *golden_section(const cJSON *set, const char *what, const char *name)
{
    const cJSON *path;
    cJSON_ArrayForEach(path, cJSON_GetObjectItemCaseSensitive(set, "other_code_paths_that_differ"))
    {
        if (!path->string || strncmp(path->string, "c_only", 6) != 0)
            continue;
        const cJSON *v =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(path, what), name);
        if (v)
            return v;
    }
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(set, what), name);
}

/* Frame i of golden_section(set, "per_frame", name); NAN when absent. */
static inline double golden_frame(const cJSON *set, const char *name, int i)
{
    const cJSON *v = cJSON_GetArrayItem(golden_section(set, "per_frame", name), i);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The parsed JSON file at path, or NULL (unreadable or not JSON). */
static inline cJSON *golden_read_json(const char *path)
{
    char *text = test_read_text(path);
    cJSON *json = text ? cJSON_Parse(text) : NULL;
    free(text);
    return json;
}

#endif
