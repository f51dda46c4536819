/*
 * libclril — decode, edit and encode ECMA-335 method bodies.
 *
 * This header is the library's manual. It depends on libc and libclrsig (for
 * the compressed integers of local signatures) and never allocates: decoded
 * instructions and clauses go into a caller-owned arena.
 *
 * A method body (ECMA-335 II.25.4) is a header (tiny or fat), the IL code
 * (Partition III instructions) and, after the code and 4-byte aligned, data
 * sections holding the exception-handling clauses (small or fat). Decoding
 * turns the code into a list of instructions whose branch targets and
 * clause boundaries are instruction indexes, not byte offsets, so code can be
 * inserted anywhere; encoding lays the list out again, turning short
 * branches into long ones where displacements grew.
 *
 *   uint8_t mem[1 << 20];
 *   clril_arena arena;
 *   clril_arena_init(&arena, mem, sizeof mem);
 *   clril_body body;
 *   clril_error err;
 *   if (clril_decode(bytes, len, &arena, &body, &err) != CLRIL_OK)
 *       printf("%s at offset %u\n", clril_strerror(err.code), err.offset);
 *   // body.insns[0..body.ninsns): the instructions; body.eh: the clauses
 *   clril_insn probe[] = { { .op = CLRIL_LDC_I4, .value = 42 }, { .op = CLRIL_POP } };
 *   clril_insert(&body, 0, probe, 2, CLRIL_KEEP_LABEL, &arena, &err);
 *   size_t n;
 *   clril_encode(&body, out, sizeof out, &n, &err);
 *
 * A body decoded and encoded without change gives back its bytes exactly
 * (tests/il checks it on every method body of the shared framework).
 *
 * Error model: every function that can fail returns a clril_status and, when
 * given a clril_error*, fills it with the status and the byte offset in the
 * body where decoding stopped (encoding and editing: the instruction index).
 * CLRIL_OK is 0. Nothing reads outside [bytes, bytes+len), nothing recurses,
 * and every count is checked against its limit and the bytes left before
 * anything is allocated.
 */
#ifndef CLRIL_CLRIL_H
#define CLRIL_CLRIL_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------ version and exports */

/* The version of this header: clrtrace's, the VERSION of project() in
 * CMakeLists.txt, through the generated clril_version.h (CLRIL_VERSION_MAJOR,
 * _MINOR, _PATCH); libclril.so.MAJOR is the soname. */
#include "clril/clril_version.h"
/* MAJOR * 10000 + MINOR * 100 + PATCH (0.2.0 is 200), usable in #if. */
#define CLRIL_VERSION_NUMBER \
    (CLRIL_VERSION_MAJOR * 10000 + CLRIL_VERSION_MINOR * 100 + CLRIL_VERSION_PATCH)
/* "MAJOR.MINOR.PATCH" */
#define CLRIL_VERSION_STRING \
    CLRIL_VERSION_TEXT_(CLRIL_VERSION_MAJOR) "." CLRIL_VERSION_TEXT_(CLRIL_VERSION_MINOR) \
    "." CLRIL_VERSION_TEXT_(CLRIL_VERSION_PATCH)
#define CLRIL_VERSION_TEXT_(n) CLRIL_VERSION_QUOTE_(n)
#define CLRIL_VERSION_QUOTE_(n) #n

/* CLRIL_API marks each function of the library: libclril is built with all
 * other symbols hidden, so these are the only ones libclril.so exports. With
 * GCC and clang it means default visibility. Define it before including this
 * header to choose otherwise, e.g. as `__attribute__((visibility("hidden")))`
 * when linking libclril.a into a shared library that must not export it. */
#ifndef CLRIL_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define CLRIL_API __attribute__((visibility("default")))
#else
#define CLRIL_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ limits */

/* Largest IL code accepted (the fat header's code size is 32-bit). */
#define CLRIL_MAX_CODE_SIZE (16u * 1024 * 1024)
/* Most targets of one switch instruction. */
#define CLRIL_MAX_SWITCH_TARGETS (1u << 20)
/* Most exception clauses of one body, and most data sections. */
#define CLRIL_MAX_CLAUSES 0xFFFFu
#define CLRIL_MAX_SECTIONS 64u
/* Most local variables a LocalVarSig may declare (the runtime's limit). */
#define CLRIL_MAX_LOCALS 0xFFFEu
/* Most instructions one clril_insert adds. */
#define CLRIL_MAX_INSERT 4096u

/* ------------------------------------------------------------------ errors */

typedef enum clril_status {
    CLRIL_OK = 0,
    CLRIL_E_TRUNCATED,   /* the bytes end inside the header, an instruction or a section */
    CLRIL_E_HEADER,      /* neither a tiny nor a fat header (or a fat header not 3 dwords) */
    CLRIL_E_OPCODE,      /* a byte that starts no Partition III instruction */
    CLRIL_E_BRANCH,      /* a branch or switch target outside the code or inside an instruction */
    CLRIL_E_SECTION,     /* a data section that is not an EH table, or of an impossible size */
    CLRIL_E_CLAUSE,      /* an EH clause whose boundaries are outside the code or not
                            instruction starts, or of an unknown kind */
    CLRIL_E_LIMIT,       /* a count or size above its CLRIL_MAX_* */
    CLRIL_E_NOMEM,       /* the caller's arena is full */
    CLRIL_E_SPACE,       /* the output buffer is too small (the size is given) */
    CLRIL_E_ARG,         /* a bad argument: an index past the end, inserted code that branches out of itself or back */
    CLRIL_E_LOCALS,      /* a local signature that is not one (0x07, count) */
} clril_status;

typedef struct clril_error {
    clril_status code;
    uint32_t offset;     /* byte offset in the body (decode), instruction index (edit) */
} clril_error;

CLRIL_API const char *clril_strerror(clril_status code);

/* ----------------------------------------------------------------- version */

/* The version of the library running: CLRIL_VERSION_NUMBER and
 * CLRIL_VERSION_STRING as they were when it was built, to compare with those
 * a program was compiled with (a shared library may be newer or older). */
CLRIL_API unsigned clril_version_number(void);
CLRIL_API const char *clril_version_string(void);

/* ------------------------------------------------------------------ arena */

typedef struct clril_arena {
    uint8_t *base;
    size_t cap, used;
} clril_arena;

CLRIL_API void clril_arena_init(clril_arena *a, void *mem, size_t cap);
CLRIL_API void clril_arena_reset(clril_arena *a);

/* -------------------------------------------------------------- opcodes */

/* An instruction's opcode: the byte for one-byte opcodes, 0xFE00 | the
 * second byte for two-byte ones (ECMA-335 III.1.2). A few names: */
enum {
    CLRIL_NOP = 0x00, CLRIL_LDARG_0 = 0x02, CLRIL_LDLOC_0 = 0x06, CLRIL_STLOC_0 = 0x0A,
    CLRIL_LDARG_S = 0x0E, CLRIL_LDARGA_S = 0x0F, CLRIL_LDLOC_S = 0x11, CLRIL_LDLOCA_S = 0x12,
    CLRIL_STLOC_S = 0x13, CLRIL_LDNULL = 0x14, CLRIL_LDC_I4_S = 0x1F, CLRIL_LDC_I4 = 0x20,
    CLRIL_LDC_I8 = 0x21, CLRIL_DUP = 0x25, CLRIL_POP = 0x26, CLRIL_CALL = 0x28,
    CLRIL_CALLI = 0x29, CLRIL_RET = 0x2A, CLRIL_BR_S = 0x2B, CLRIL_BRFALSE_S = 0x2C,
    CLRIL_BRTRUE_S = 0x2D, CLRIL_BR = 0x38, CLRIL_LDC_I4_0 = 0x16, CLRIL_CONV_I = 0xD3,
    CLRIL_SWITCH = 0x45, CLRIL_CALLVIRT = 0x6F, CLRIL_NEWOBJ = 0x73, CLRIL_LEAVE = 0xDD,
    CLRIL_LEAVE_S = 0xDE, CLRIL_CONV_U = 0xE0,
    CLRIL_LDARG = 0xFE09, CLRIL_LDARGA = 0xFE0A, CLRIL_LDLOC = 0xFE0C, CLRIL_LDLOCA = 0xFE0D,
    CLRIL_STLOC = 0xFE0E, CLRIL_TAIL = 0xFE14,
};

/* What follows an opcode (III.1.9 operand types). */
typedef enum clril_operand {
    CLRIL_OPERAND_NONE,
    CLRIL_OPERAND_VAR8,     /* ShortInlineVar: u8 argument or local number */
    CLRIL_OPERAND_VAR16,    /* InlineVar: u16 */
    CLRIL_OPERAND_I8,       /* ShortInlineI: i8 (ldc.i4.s; unaligned. and no. take a u8) */
    CLRIL_OPERAND_I32,      /* InlineI */
    CLRIL_OPERAND_I64,      /* InlineI8 */
    CLRIL_OPERAND_R32,      /* ShortInlineR: the float's 4 bytes (value holds the bits) */
    CLRIL_OPERAND_R64,      /* InlineR: the double's 8 bytes (bits) */
    CLRIL_OPERAND_TOKEN,    /* InlineMethod, Field, Type, String, Sig, Tok: a u32 token */
    CLRIL_OPERAND_BR8,      /* ShortInlineBrTarget: i8 displacement */
    CLRIL_OPERAND_BR32,     /* InlineBrTarget: i32 displacement */
    CLRIL_OPERAND_SWITCH,   /* InlineSwitch: u32 n, n x i32 displacements */
} clril_operand;

/* The operand kind of op, or -1 when op is not a Partition III opcode. */
CLRIL_API int clril_operand_of(uint16_t op);
/* "ldarg.0", "br.s", "tail.", ...; NULL for a byte that is no opcode. */
CLRIL_API const char *clril_name(uint16_t op);
/* The long form of a short branch (br.s -> br, leave.s -> leave, ...), or op
 * itself when it is not a short branch. */
CLRIL_API uint16_t clril_long_form(uint16_t op);

/* -------------------------------------------------------------- bodies */

/* Where an instruction came from: its byte offset in the decoded body's
 * code, or CLRIL_NEW for an inserted one. */
#define CLRIL_NEW UINT32_MAX

typedef struct clril_insn {
    uint16_t op;
    uint8_t operand;          /* clril_operand of op (set by decode, insert and encode) */
    uint32_t offset;          /* its code offset: as read (decode), as written (encode),
                                 or CLRIL_NEW for an inserted one until encoded */
    int64_t value;            /* VAR8/VAR16 (unsigned), I8, I32, I64, R32/R64 bits, TOKEN */
    uint32_t target;          /* BR8/BR32: the target instruction's index; the number of
                                 instructions means the end of the code */
    uint32_t ntargets;        /* SWITCH: targets[0..ntargets), instruction indexes */
    uint32_t *targets;
} clril_insn;

/* Clause kinds (II.25.4.6). */
enum {
    CLRIL_CLAUSE_CATCH = 0, CLRIL_CLAUSE_FILTER = 1, CLRIL_CLAUSE_FINALLY = 2,
    CLRIL_CLAUSE_FAULT = 4,
};

typedef struct clril_clause {
    uint32_t flags;           /* CLRIL_CLAUSE_* */
    /* Instruction indexes; an end is one past the last instruction of the
     * block (the number of instructions: the end of the code). */
    uint32_t try_start, try_end, handler_start, handler_end;
    uint32_t class_token;     /* CATCH: the caught type */
    uint32_t filter_start;    /* FILTER: the filter's first instruction */
} clril_clause;

/* One data section as it was read (to write it back the same way). */
typedef struct clril_section {
    uint8_t fat;              /* fat clauses (24 bytes) rather than small (12) */
    uint8_t more;             /* the MoreSects bit as read */
    uint16_t reserved;        /* a small section's reserved word as read */
    uint8_t pad[3];           /* the bytes before it that align it to 4, as read (any
                                 value: the format leaves them free) */
    uint32_t data_size;       /* as read: 4 + clauses x their size, normally */
    uint32_t first, count;    /* its clauses in the body's eh[] */
} clril_section;

typedef struct clril_body {
    uint8_t fat;              /* the header was fat (12 bytes) */
    uint16_t flags;           /* a fat header's 12 flag bits (0x10 InitLocals, ...) */
    uint16_t max_stack;       /* (8 for a tiny header) */
    uint32_t local_sig;       /* StandAloneSig token of the locals, or 0 */
    uint32_t code_size;       /* as decoded (encode sets it to the new size) */
    clril_insn *insns;
    uint32_t ninsns;
    clril_clause *eh;
    uint32_t neh;
    clril_section *sections;  /* as read; encode rebuilds them when clauses changed */
    uint32_t nsections;
    size_t size;              /* bytes the body took (decode) or takes (encode) */
} clril_body;

/* Decodes the body at bytes[0..len): len may run past its end (the body
 * says how long it is: body->size). Instructions, targets, clauses and
 * sections go into the arena. */
CLRIL_API clril_status clril_decode(const uint8_t *bytes, size_t len, clril_arena *a,
                                    clril_body *body, clril_error *err);

/* How inserted code relates to the instruction it is put before. */
typedef enum clril_label {
    CLRIL_KEEP_LABEL,  /* branches and clause boundaries naming instruction `at` still
                          name it: the new code runs only when falling into `at` from
                          the instruction before (code at the method's entry) */
    CLRIL_TAKE_LABEL,  /* they name the first new instruction: the new code runs on
                          every path to `at` (code before a ret) */
} clril_label;

/* Inserts code[0..n) before instruction at (0..ninsns). The code has no
 * switch, ret or leave, and its branches go forward inside it: a branch's
 * target is an index into code, after the branch, or n for instruction at
 * (so `brtrue.s` over a few instructions of a probe is possible; the body's
 * own code is never a target).  Instruction indexes in the body are
 * renumbered; the body's arrays (instructions, switch targets, clauses,
 * sections) are all rebuilt in the arena a, so the memory they were in may
 * be reused once this returns (two arenas used in turn bound the memory of
 * many insertions). */
CLRIL_API clril_status clril_insert(clril_body *body, uint32_t at, const clril_insn *code,
                                    uint32_t n, clril_label label, clril_arena *a,
                                    clril_error *err);

/* Encodes body into out[0..cap): the header (tiny when the original was tiny
 * and the body still fits one: code under 64 bytes, max_stack <= 8, no
 * locals, no clauses; else fat with the original flags), the code, and the
 * EH sections (each kept small or fat as read, fat when a small one no
 * longer holds its clauses' offsets). Short branches whose displacement no
 * longer fits in a byte become long (in body->insns). *len is the size
 * needed, also with CLRIL_E_SPACE. body->code_size and size are updated. */
CLRIL_API clril_status clril_encode(clril_body *body, uint8_t *out, size_t cap, size_t *len,
                                    clril_error *err);

/* ------------------------------------------------------- local signatures */

/* Appends k local types (types[0..types_len): k encoded types, e.g. the one
 * byte 0x0A for int64, as ECMA-335 II.23.2.6 has them) to the LocalVarSig
 * old[0..old_len) (NULL/0: the method has no locals), writing the new
 * signature to out[0..cap). *first is the number of the first new local.
 * CLRIL_E_LOCALS when old does not start with 0x07 and a count, E_LIMIT past
 * CLRIL_MAX_LOCALS, E_SPACE when out is too small (*out_len: what it needs). */
CLRIL_API clril_status clril_locals_append(const uint8_t *old, size_t old_len, const uint8_t *types,
                                           size_t types_len, uint32_t k, uint8_t *out, size_t cap,
                                           size_t *out_len, uint32_t *first, clril_error *err);

#ifdef __cplusplus
}
#endif
#endif
