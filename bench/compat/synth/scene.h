/* Transitional: bench/klt.c still includes "synth/scene.h" and the scene's old
 * fovea_-prefixed names; the scene now lives in tools/demo (scene.h) under plain
 * names. Delete this header (and bench_klt's compat include) once bench/klt.c
 * includes "scene.h" and uses scene_model, scene_params, scene_default_params,
 * scene_init and scene_color. */
#ifndef FOVEA_BENCH_COMPAT_SYNTH_SCENE_H
#define FOVEA_BENCH_COMPAT_SYNTH_SCENE_H

#include "../../../tools/demo/scene.h" /* not "scene.h": that is this file */

#define fovea_scene scene_model
#define fovea_scene_params scene_params
#define fovea_scene_default_params scene_default_params
#define fovea_scene_init scene_init
#define fovea_scene_color scene_color

#endif
