/* Settings read once from the environment in Initialize (docs/tracer.md). */
#ifndef CLRTRACE_CONFIG_H
#define CLRTRACE_CONFIG_H

typedef struct ct_config {
    const char *output_path; /* CLRTRACE_OUTPUT; NULL means stderr */
    int trace_all;           /* CLRTRACE_ALL=1: also framework code */
    int allow_inlining;      /* CLRTRACE_INLINING=1: let the JIT inline (inlinees get no hooks) */
    int signatures;          /* CLRTRACE_SIGNATURES=0 turns signature decoding off */
} ct_config;

/* Fills c from the environment. Strings point into the environment. */
void ct_config_from_env(ct_config *c);

#endif
