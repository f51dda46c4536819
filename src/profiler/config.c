#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* "1", "yes", "true", "on" (any case for the words) count as true. */
static int env_flag(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
        !strcasecmp(v, "on"))
        return 1;
    return 0;
}

void ct_config_from_env(ct_config *c)
{
    const char *out = getenv("CLRTRACE_OUTPUT");
    c->output_path = (out && *out) ? out : NULL;
    c->trace_all = env_flag("CLRTRACE_ALL", 0);
    c->allow_inlining = env_flag("CLRTRACE_INLINING", 0);
    c->signatures = env_flag("CLRTRACE_SIGNATURES", 1);
}
