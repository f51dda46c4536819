/* The function registry: one record per FunctionID, built by the runtime's
 * FunctionIDMapper2 callback the first time a function is JIT-compiled.
 *
 * All metadata work (names, signature text, the filter decision) happens
 * here, once per function; the hooks only read the record, whose address is
 * the client id the runtime hands them. Records live until the process ends. */
#ifndef CLRTRACE_REGISTRY_H
#define CLRTRACE_REGISTRY_H

#include <stdatomic.h>

#include "corprof_decls.h"

typedef struct ct_function {
    FunctionID id;
    int hooked;                 /* passes the filter: the runtime calls our hooks */
    atomic_uint arginfo_size;   /* bytes GetFunctionEnter3Info needs; 0 until learned */
    const char *name;           /* "Demo.Greeter.Counter.Bump"; "?" when unknown */
    const char *signature;      /* "int Bump(int by)", or NULL when not decoded */
} ct_function;

/* The FunctionIDMapper2 we register. Returns the record's address and sets
 * *hook. Racing calls for one FunctionID get the same record. */
UINT_PTR ct_function_mapper(FunctionID id, void *client_data, BOOL *hook);

/* The record for id, or NULL when the mapper has not seen it. */
const ct_function *ct_registry_find(FunctionID id);

/* Counts for the closing summary. */
void ct_registry_counts(unsigned long *mapped, unsigned long *hooked);

#endif
