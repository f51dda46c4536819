/* The Partition III opcodes (ECMA-335 III.1.2, and the runtime's
 * src/coreclr/inc/opcode.def for the byte values): name and operand kind. */
#include "clril/clril.h"

typedef struct opinfo {
    const char *name;
    signed char operand; /* clril_operand, or -1: not an opcode */
} opinfo;

#define N CLRIL_OPERAND_NONE
#define V8 CLRIL_OPERAND_VAR8
#define V16 CLRIL_OPERAND_VAR16
#define I8 CLRIL_OPERAND_I8
#define I32 CLRIL_OPERAND_I32
#define I64 CLRIL_OPERAND_I64
#define R32 CLRIL_OPERAND_R32
#define R64 CLRIL_OPERAND_R64
#define T CLRIL_OPERAND_TOKEN
#define B8 CLRIL_OPERAND_BR8
#define B32 CLRIL_OPERAND_BR32
#define SW CLRIL_OPERAND_SWITCH

/* Bytes not listed are no opcode (operand -1 through the default below). */
static const opinfo k_one[256] = {
    [0x00] = {"nop", N}, [0x01] = {"break", N},
    [0x02] = {"ldarg.0", N}, [0x03] = {"ldarg.1", N}, [0x04] = {"ldarg.2", N},
    [0x05] = {"ldarg.3", N}, [0x06] = {"ldloc.0", N}, [0x07] = {"ldloc.1", N},
    [0x08] = {"ldloc.2", N}, [0x09] = {"ldloc.3", N}, [0x0A] = {"stloc.0", N},
    [0x0B] = {"stloc.1", N}, [0x0C] = {"stloc.2", N}, [0x0D] = {"stloc.3", N},
    [0x0E] = {"ldarg.s", V8}, [0x0F] = {"ldarga.s", V8}, [0x10] = {"starg.s", V8},
    [0x11] = {"ldloc.s", V8}, [0x12] = {"ldloca.s", V8}, [0x13] = {"stloc.s", V8},
    [0x14] = {"ldnull", N}, [0x15] = {"ldc.i4.m1", N}, [0x16] = {"ldc.i4.0", N},
    [0x17] = {"ldc.i4.1", N}, [0x18] = {"ldc.i4.2", N}, [0x19] = {"ldc.i4.3", N},
    [0x1A] = {"ldc.i4.4", N}, [0x1B] = {"ldc.i4.5", N}, [0x1C] = {"ldc.i4.6", N},
    [0x1D] = {"ldc.i4.7", N}, [0x1E] = {"ldc.i4.8", N}, [0x1F] = {"ldc.i4.s", I8},
    [0x20] = {"ldc.i4", I32}, [0x21] = {"ldc.i8", I64}, [0x22] = {"ldc.r4", R32},
    [0x23] = {"ldc.r8", R64}, [0x25] = {"dup", N}, [0x26] = {"pop", N},
    [0x27] = {"jmp", T}, [0x28] = {"call", T}, [0x29] = {"calli", T}, [0x2A] = {"ret", N},
    [0x2B] = {"br.s", B8}, [0x2C] = {"brfalse.s", B8}, [0x2D] = {"brtrue.s", B8},
    [0x2E] = {"beq.s", B8}, [0x2F] = {"bge.s", B8}, [0x30] = {"bgt.s", B8},
    [0x31] = {"ble.s", B8}, [0x32] = {"blt.s", B8}, [0x33] = {"bne.un.s", B8},
    [0x34] = {"bge.un.s", B8}, [0x35] = {"bgt.un.s", B8}, [0x36] = {"ble.un.s", B8},
    [0x37] = {"blt.un.s", B8}, [0x38] = {"br", B32}, [0x39] = {"brfalse", B32},
    [0x3A] = {"brtrue", B32}, [0x3B] = {"beq", B32}, [0x3C] = {"bge", B32},
    [0x3D] = {"bgt", B32}, [0x3E] = {"ble", B32}, [0x3F] = {"blt", B32},
    [0x40] = {"bne.un", B32}, [0x41] = {"bge.un", B32}, [0x42] = {"bgt.un", B32},
    [0x43] = {"ble.un", B32}, [0x44] = {"blt.un", B32}, [0x45] = {"switch", SW},
    [0x46] = {"ldind.i1", N}, [0x47] = {"ldind.u1", N}, [0x48] = {"ldind.i2", N},
    [0x49] = {"ldind.u2", N}, [0x4A] = {"ldind.i4", N}, [0x4B] = {"ldind.u4", N},
    [0x4C] = {"ldind.i8", N}, [0x4D] = {"ldind.i", N}, [0x4E] = {"ldind.r4", N},
    [0x4F] = {"ldind.r8", N}, [0x50] = {"ldind.ref", N}, [0x51] = {"stind.ref", N},
    [0x52] = {"stind.i1", N}, [0x53] = {"stind.i2", N}, [0x54] = {"stind.i4", N},
    [0x55] = {"stind.i8", N}, [0x56] = {"stind.r4", N}, [0x57] = {"stind.r8", N},
    [0x58] = {"add", N}, [0x59] = {"sub", N}, [0x5A] = {"mul", N}, [0x5B] = {"div", N},
    [0x5C] = {"div.un", N}, [0x5D] = {"rem", N}, [0x5E] = {"rem.un", N}, [0x5F] = {"and", N},
    [0x60] = {"or", N}, [0x61] = {"xor", N}, [0x62] = {"shl", N}, [0x63] = {"shr", N},
    [0x64] = {"shr.un", N}, [0x65] = {"neg", N}, [0x66] = {"not", N},
    [0x67] = {"conv.i1", N}, [0x68] = {"conv.i2", N}, [0x69] = {"conv.i4", N},
    [0x6A] = {"conv.i8", N}, [0x6B] = {"conv.r4", N}, [0x6C] = {"conv.r8", N},
    [0x6D] = {"conv.u4", N}, [0x6E] = {"conv.u8", N}, [0x6F] = {"callvirt", T},
    [0x70] = {"cpobj", T}, [0x71] = {"ldobj", T}, [0x72] = {"ldstr", T},
    [0x73] = {"newobj", T}, [0x74] = {"castclass", T}, [0x75] = {"isinst", T},
    [0x76] = {"conv.r.un", N}, [0x79] = {"unbox", T}, [0x7A] = {"throw", N},
    [0x7B] = {"ldfld", T}, [0x7C] = {"ldflda", T}, [0x7D] = {"stfld", T},
    [0x7E] = {"ldsfld", T}, [0x7F] = {"ldsflda", T}, [0x80] = {"stsfld", T},
    [0x81] = {"stobj", T}, [0x82] = {"conv.ovf.i1.un", N}, [0x83] = {"conv.ovf.i2.un", N},
    [0x84] = {"conv.ovf.i4.un", N}, [0x85] = {"conv.ovf.i8.un", N},
    [0x86] = {"conv.ovf.u1.un", N}, [0x87] = {"conv.ovf.u2.un", N},
    [0x88] = {"conv.ovf.u4.un", N}, [0x89] = {"conv.ovf.u8.un", N},
    [0x8A] = {"conv.ovf.i.un", N}, [0x8B] = {"conv.ovf.u.un", N}, [0x8C] = {"box", T},
    [0x8D] = {"newarr", T}, [0x8E] = {"ldlen", N}, [0x8F] = {"ldelema", T},
    [0x90] = {"ldelem.i1", N}, [0x91] = {"ldelem.u1", N}, [0x92] = {"ldelem.i2", N},
    [0x93] = {"ldelem.u2", N}, [0x94] = {"ldelem.i4", N}, [0x95] = {"ldelem.u4", N},
    [0x96] = {"ldelem.i8", N}, [0x97] = {"ldelem.i", N}, [0x98] = {"ldelem.r4", N},
    [0x99] = {"ldelem.r8", N}, [0x9A] = {"ldelem.ref", N}, [0x9B] = {"stelem.i", N},
    [0x9C] = {"stelem.i1", N}, [0x9D] = {"stelem.i2", N}, [0x9E] = {"stelem.i4", N},
    [0x9F] = {"stelem.i8", N}, [0xA0] = {"stelem.r4", N}, [0xA1] = {"stelem.r8", N},
    [0xA2] = {"stelem.ref", N}, [0xA3] = {"ldelem", T}, [0xA4] = {"stelem", T},
    [0xA5] = {"unbox.any", T}, [0xB3] = {"conv.ovf.i1", N}, [0xB4] = {"conv.ovf.u1", N},
    [0xB5] = {"conv.ovf.i2", N}, [0xB6] = {"conv.ovf.u2", N}, [0xB7] = {"conv.ovf.i4", N},
    [0xB8] = {"conv.ovf.u4", N}, [0xB9] = {"conv.ovf.i8", N}, [0xBA] = {"conv.ovf.u8", N},
    [0xC2] = {"refanyval", T}, [0xC3] = {"ckfinite", N}, [0xC6] = {"mkrefany", T},
    [0xD0] = {"ldtoken", T}, [0xD1] = {"conv.u2", N}, [0xD2] = {"conv.u1", N},
    [0xD3] = {"conv.i", N}, [0xD4] = {"conv.ovf.i", N}, [0xD5] = {"conv.ovf.u", N},
    [0xD6] = {"add.ovf", N}, [0xD7] = {"add.ovf.un", N}, [0xD8] = {"mul.ovf", N},
    [0xD9] = {"mul.ovf.un", N}, [0xDA] = {"sub.ovf", N}, [0xDB] = {"sub.ovf.un", N},
    [0xDC] = {"endfinally", N}, [0xDD] = {"leave", B32}, [0xDE] = {"leave.s", B8},
    [0xDF] = {"stind.i", N}, [0xE0] = {"conv.u", N},
};

/* Second bytes after 0xFE. */
#define TWO_BYTE_COUNT 0x1F
static const opinfo k_two[TWO_BYTE_COUNT] = {
    [0x00] = {"arglist", N}, [0x01] = {"ceq", N}, [0x02] = {"cgt", N}, [0x03] = {"cgt.un", N},
    [0x04] = {"clt", N}, [0x05] = {"clt.un", N}, [0x06] = {"ldftn", T},
    [0x07] = {"ldvirtftn", T}, [0x09] = {"ldarg", V16}, [0x0A] = {"ldarga", V16},
    [0x0B] = {"starg", V16}, [0x0C] = {"ldloc", V16}, [0x0D] = {"ldloca", V16},
    [0x0E] = {"stloc", V16}, [0x0F] = {"localloc", N}, [0x11] = {"endfilter", N},
    [0x12] = {"unaligned.", I8}, [0x13] = {"volatile.", N}, [0x14] = {"tail.", N},
    [0x15] = {"initobj", T}, [0x16] = {"constrained.", T}, [0x17] = {"cpblk", N},
    [0x18] = {"initblk", N}, [0x19] = {"no.", I8}, [0x1A] = {"rethrow", N},
    [0x1C] = {"sizeof", T}, [0x1D] = {"refanytype", N}, [0x1E] = {"readonly.", N},
};

static const opinfo *info(uint16_t op)
{
    const opinfo *i = NULL;
    if (op < 0x100)
        i = &k_one[op];
    else if ((op >> 8) == 0xFE && (op & 0xFF) < TWO_BYTE_COUNT)
        i = &k_two[op & 0xFF];
    return i && i->name ? i : NULL;
}

int clril_operand_of(uint16_t op)
{
    const opinfo *i = info(op);
    return i ? i->operand : -1;
}

const char *clril_name(uint16_t op)
{
    const opinfo *i = info(op);
    return i ? i->name : NULL;
}

uint16_t clril_long_form(uint16_t op)
{
    if (op >= 0x2B && op <= 0x37) /* br.s .. blt.un.s -> br .. blt.un */
        return (uint16_t)(op + (0x38 - 0x2B));
    if (op == CLRIL_LEAVE_S)
        return CLRIL_LEAVE;
    return op;
}

const char *clril_strerror(clril_status code)
{
    switch (code) {
    case CLRIL_OK: return "ok";
    case CLRIL_E_TRUNCATED: return "the body ends inside an item";
    case CLRIL_E_HEADER: return "not a method body header";
    case CLRIL_E_OPCODE: return "not an opcode";
    case CLRIL_E_BRANCH: return "branch target outside the code or inside an instruction";
    case CLRIL_E_SECTION: return "bad data section";
    case CLRIL_E_CLAUSE: return "bad exception clause";
    case CLRIL_E_LIMIT: return "count or size above its limit";
    case CLRIL_E_NOMEM: return "arena exhausted";
    case CLRIL_E_SPACE: return "output buffer too small";
    case CLRIL_E_ARG: return "bad argument";
    case CLRIL_E_LOCALS: return "not a local variable signature";
    }
    return "unknown error";
}

void clril_arena_init(clril_arena *a, void *mem, size_t cap)
{
    a->base = mem;
    a->cap = mem ? cap : 0;
    a->used = 0;
}

void clril_arena_reset(clril_arena *a)
{
    a->used = 0;
}
