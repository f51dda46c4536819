/*
 * corprof_decls.h — our own C declarations of the CoreCLR profiling and
 * metadata COM interfaces, as far as clrtrace needs them.
 *
 * Written from facts (vtable order, IIDs, flag values, struct layouts), not
 * copied from any header. Each group names the file it was checked against:
 *
 *   [idl]  dotnet/runtime src/coreclr/inc/corprof.idl
 *          (read at commit 05284b23e41225cb8c8ec6c4710b4d51d3dcba25)
 *   [cor]  dotnet/runtime src/coreclr/inc/cor.h
 *          (read at commit 14ba0d9abe90d227f00c15fc4f769491528115d5)
 *   [asm]  dotnet/runtime src/coreclr/vm/amd64/asmhelpers.S, profiler.cpp
 *   [ee]   dotnet/runtime src/coreclr/vm/eetoprofinterfaceimpl.cpp
 *
 * A COM object is a pointer to a struct whose first member points to a table
 * of function pointers (the vtable). Slot numbers below are 0-based and count
 * IUnknown's three methods (0 QueryInterface, 1 AddRef, 2 Release). Every
 * slot we call is checked by a static assertion at the end of this file, so
 * an off-by-one in a table fails the build instead of crashing a process.
 *
 * Slots we never call are declared as plain `void *` fields carrying the
 * method's name, so the table keeps its shape and stays readable. The
 * callback table (which we implement) is fully typed.
 *
 * Platform (PAL on Linux x64/arm64): no __stdcall, HRESULT/LONG/BOOL are 32
 * bits, ULONG/DWORD 32 bits, WCHAR 16 bits (UTF-16), *ID types pointer-sized.
 */
#ifndef CLRTRACE_CORPROF_DECLS_H
#define CLRTRACE_CORPROF_DECLS_H

#include <stddef.h>
#include <stdint.h>

/* ----------------------------------------------------------------- scalars */

typedef int32_t HRESULT;
typedef int32_t BOOL;
typedef uint32_t ULONG;
typedef uint32_t ULONG32;
typedef uint32_t DWORD;
typedef uint32_t UINT;
typedef uint16_t USHORT;
typedef uint16_t WCHAR;       /* UTF-16 code unit, not wchar_t (32 bits on Linux) */
typedef uintptr_t UINT_PTR;
typedef uint8_t BYTE;

typedef uint32_t mdToken;     /* table << 24 | row id */
typedef mdToken mdTypeDef;
typedef mdToken mdTypeRef;
typedef mdToken mdMethodDef;
typedef mdToken mdParamDef;
typedef mdToken mdTypeSpec;
typedef mdToken mdGenericParam;
typedef mdToken mdFieldDef;
typedef void *HCORENUM; /* [cor] opaque enumerator handle */
typedef const BYTE *PCCOR_SIGNATURE;
typedef uint32_t CorElementType; /* [cor] an enum: ELEMENT_TYPE_* values, int-sized */

/* [idl] "typedef UINT_PTR ...ID" */
typedef UINT_PTR FunctionID;
typedef UINT_PTR ClassID;
typedef UINT_PTR ModuleID;
typedef UINT_PTR AssemblyID;
typedef UINT_PTR AppDomainID;
typedef UINT_PTR ThreadID;
typedef UINT_PTR ObjectID;
typedef UINT_PTR GCHandleID;
typedef UINT_PTR ReJITID;
typedef size_t SIZE_T;
typedef UINT_PTR COR_PRF_ELT_INFO;
typedef UINT_PTR COR_PRF_FRAME_INFO;
/* [corprof] StackSnapshotCallback (DoStackSnapshot): one frame, innermost
 * first; funcId 0 for a run of native frames. S_OK goes on, S_FALSE stops. */
typedef HRESULT CtStackSnapshotCallback(FunctionID funcId, UINT_PTR ip,
                                        COR_PRF_FRAME_INFO frameInfo, ULONG32 contextSize,
                                        BYTE context[], void *clientData);
/* [cordebuginfo] COR_DEBUG_IL_TO_NATIVE_MAP: native code [start, end) from
 * IL offset ilOffset (or a CT_IL_MAP_* special value). */
typedef struct COR_DEBUG_IL_TO_NATIVE_MAP {
    ULONG32 ilOffset;
    ULONG32 nativeStartOffset;
    ULONG32 nativeEndOffset;
} COR_DEBUG_IL_TO_NATIVE_MAP;
/* [cordebuginfo] CorDebugIlToNativeMappingTypes */
enum { CT_IL_MAP_NO_MAPPING = -1, CT_IL_MAP_PROLOG = -2, CT_IL_MAP_EPILOG = -3 };
/* [corprof] COR_PRF_CODE_INFO: one range of a method's native code. */
typedef struct COR_PRF_CODE_INFO {
    UINT_PTR startAddress;
    SIZE_T size;
} COR_PRF_CODE_INFO;

#define S_OK ((HRESULT)0)
#define S_FALSE ((HRESULT)1)
#define E_NOINTERFACE ((HRESULT)0x80004002)
#define E_POINTER ((HRESULT)0x80004003)
#define E_FAIL ((HRESULT)0x80004005)
#define E_OUTOFMEMORY ((HRESULT)0x8007000E)
#define CLASS_E_NOAGGREGATION ((HRESULT)0x80040110)
#define CLASS_E_CLASSNOTAVAILABLE ((HRESULT)0x80040111)
/* HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER = 122): 0x80070000 | 122 */
#define HRESULT_INSUFFICIENT_BUFFER ((HRESULT)0x8007007A)
/* The HRESULT a profiler returns to decline loading without an error
 * ([ee] CoCreateProfiler logs it as "cancel activation", not as a failure).
 * Value from corerror.h: 0x80131375. */
#define CORPROF_E_PROFILER_CANCEL_ACTIVATION ((HRESULT)0x80131375)
/* corerror.h: a call the runtime answers only inside a callback (the IL
 * engine's probes are not). */
#define CORPROF_E_UNSUPPORTED_CALL_SEQUENCE ((HRESULT)0x80131363)

#define SUCCEEDED(hr) ((HRESULT)(hr) >= 0)
#define FAILED(hr) ((HRESULT)(hr) < 0)

/* -------------------------------------------------------------------- GUID */

typedef struct GUID {
    uint32_t Data1;
    uint16_t Data2;
    uint16_t Data3;
    uint8_t Data4[8];
} GUID;
typedef GUID IID;
typedef GUID CLSID;
typedef const GUID *REFIID;
typedef const GUID *REFCLSID;
typedef const GUID *REFGUID;

/* --------------------------------------------------------------- structs */

/* [idl] _COR_PRF_FUNCTION_ARGUMENT_RANGE: 16 bytes on 64-bit (8 + 4 + pad) */
/* corprof.idl: one original IL offset and where it is in a rewritten body
 * (SetILInstrumentedCodeMap). */
typedef struct COR_IL_MAP {
    uint32_t oldOffset;
    uint32_t newOffset;
    BOOL fAccurate;
} COR_IL_MAP;

typedef struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
    UINT_PTR startAddress;
    ULONG length;
} COR_PRF_FUNCTION_ARGUMENT_RANGE;

/* [idl] _COR_PRF_FUNCTION_ARGUMENT_INFO: ranges[1] in the IDL; the real
 * array has numRanges entries (a flexible array member here). */
typedef struct COR_PRF_FUNCTION_ARGUMENT_INFO {
    ULONG numRanges;
    ULONG totalArgumentSize;
    COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[];
} COR_PRF_FUNCTION_ARGUMENT_INFO;

/* [cor] COR_FIELD_OFFSET: what ICorProfilerInfo2::GetClassLayout fills in.
 * ridOfField is the full FieldDef token despite its name ([ee]
 * proftoeeinterfaceimpl.cpp stores pField->GetMemberDef()); ulOffset is from
 * the start of the unboxed data for value types, from the object pointer
 * (past the method table) for reference types. */
typedef struct COR_FIELD_OFFSET {
    mdFieldDef ridOfField;
    ULONG ulOffset;
} COR_FIELD_OFFSET;

/* [idl] typedef union {FunctionID functionID; UINT_PTR clientID;} */
typedef union FunctionIDOrClientID {
    FunctionID functionID;
    UINT_PTR clientID;
} FunctionIDOrClientID;

/* [idl] COR_PRF_MONITOR (the event mask bits we use) */
enum {
    COR_PRF_MONITOR_MODULE_LOADS = 0x00000004,
    COR_PRF_MONITOR_CLASS_LOADS = 0x00000002,
    COR_PRF_MONITOR_JIT_COMPILATION = 0x00000020,
    COR_PRF_MONITOR_EXCEPTIONS = 0x00000040,
    COR_PRF_MONITOR_THREADS = 0x00000200,
    COR_PRF_MONITOR_ENTERLEAVE = 0x00001000,
    COR_PRF_MONITOR_CACHE_SEARCHES = 0x00020000,
    COR_PRF_DISABLE_INLINING = 0x00200000,
    COR_PRF_ENABLE_FUNCTION_ARGS = 0x02000000,
    COR_PRF_ENABLE_FUNCTION_RETVAL = 0x04000000,
    COR_PRF_ENABLE_FRAME_INFO = 0x08000000
};

/* [idl] COR_PRF_ENABLE_REJIT (a startup-or-attach flag: once set, it stays,
 * and the runtime refuses RequestProfilerDetach) and COR_PRF_REJIT_FLAGS. */
enum { COR_PRF_ENABLE_REJIT = 0x00040000 };
/* [idl] COR_PRF_ENABLE_STACK_SNAPSHOT: DoStackSnapshot may be called (allowed
 * after attach; it turns the ELT fast path off, so set only for --srcline). */
enum { COR_PRF_ENABLE_STACK_SNAPSHOT = 0x10000000 };
/* [idl] COR_PRF_HIGH_MONITOR: GarbageCollectionStarted/Finished alone */
enum { COR_PRF_HIGH_BASIC_GC = 0x00000010 };
enum { COR_PRF_REJIT_BLOCK_INLINING = 0x1 };

/* [idl] COR_PRF_RUNTIME_TYPE */
enum { COR_PRF_DESKTOP_CLR = 0x1, COR_PRF_CORE_CLR = 0x2 };

/* ---------------------------------------------------------------- hooks */

/* [idl] FunctionIDMapper2 and the ...3WithInfo hooks. [asm] The WithInfo
 * hooks are called from the runtime's ProfileEnter/Leave/Tailcall helpers,
 * reached through ProfileEnterNaked & co., which save and restore the
 * argument and return registers (rdi..r9, xmm0-7, rax, rdx) themselves; so
 * these are ordinary C functions. */
typedef UINT_PTR FunctionIDMapper2(FunctionID funcId, void *clientData, BOOL *pbHookFunction);
typedef void FunctionEnter3WithInfo(FunctionIDOrClientID id, COR_PRF_ELT_INFO eltInfo);
typedef void FunctionLeave3WithInfo(FunctionIDOrClientID id, COR_PRF_ELT_INFO eltInfo);
typedef void FunctionTailcall3WithInfo(FunctionIDOrClientID id, COR_PRF_ELT_INFO eltInfo);
/* [idl] The fast-path hooks of SetEnterLeaveFunctionHooks3: called straight
 * from JIT-compiled code with the JIT's own register convention, so only
 * assembly stubs (src/agent/engines/elt/asm, docs/asm.md) can be registered as these. */
typedef void FunctionEnter3(FunctionIDOrClientID id);
typedef void FunctionLeave3(FunctionIDOrClientID id);
typedef void FunctionTailcall3(FunctionIDOrClientID id);

/* ------------------------------------------------------------- IUnknown */

typedef struct IUnknown IUnknown;
typedef struct IUnknownVtbl {
    HRESULT (*QueryInterface)(IUnknown *self, REFIID riid, void **ppv);  /* 0 */
    ULONG (*AddRef)(IUnknown *self);                                      /* 1 */
    ULONG (*Release)(IUnknown *self);                                     /* 2 */
} IUnknownVtbl;
struct IUnknown {
    const IUnknownVtbl *lpVtbl;
};

/* -------------------------------------------------------- IClassFactory */

typedef struct IClassFactory IClassFactory;
typedef struct IClassFactoryVtbl {
    HRESULT (*QueryInterface)(IClassFactory *self, REFIID riid, void **ppv);
    ULONG (*AddRef)(IClassFactory *self);
    ULONG (*Release)(IClassFactory *self);
    HRESULT (*CreateInstance)(IClassFactory *self, IUnknown *outer, REFIID riid,
                              void **ppv);                                 /* 3 */
    HRESULT (*LockServer)(IClassFactory *self, BOOL lock);                 /* 4 */
} IClassFactoryVtbl;
struct IClassFactory {
    const IClassFactoryVtbl *lpVtbl;
};

/* ------------------------------------------------ ICorProfilerCallback4 */

/* [idl] interface ICorProfilerFunctionControl : IUnknown: what
 * GetReJITParameters is handed to give the runtime a method's new IL (the
 * runtime copies the body and the map). */
typedef struct ICorProfilerFunctionControl ICorProfilerFunctionControl;
typedef struct ICorProfilerFunctionControlVtbl {
    HRESULT (*QueryInterface)(ICorProfilerFunctionControl *self, REFIID riid, void **ppv); /* 0 */
    ULONG (*AddRef)(ICorProfilerFunctionControl *self);                                 /* 1 */
    ULONG (*Release)(ICorProfilerFunctionControl *self);                                /* 2 */
    HRESULT (*SetCodegenFlags)(ICorProfilerFunctionControl *self, DWORD flags);         /* 3 */
    HRESULT (*SetILFunctionBody)(ICorProfilerFunctionControl *self, ULONG cb,
                                 const BYTE *header);                                   /* 4 */
    HRESULT (*SetILInstrumentedCodeMap)(ICorProfilerFunctionControl *self, ULONG n,
                                        COR_IL_MAP *map);                               /* 5 */
} ICorProfilerFunctionControlVtbl;
struct ICorProfilerFunctionControl {
    const ICorProfilerFunctionControlVtbl *lpVtbl;
};

/* One table for ICorProfilerCallback (slots 3-71), ICorProfilerCallback2
 * (72-79), ICorProfilerCallback3 (80-82) and ICorProfilerCallback4 (83-88),
 * in [idl] declaration order. Interfaces inherit by appending, so a
 * Callback4 pointer is also a valid Callback3, Callback2 and Callback
 * pointer. Enum parameters are passed as int. */
typedef struct ICorProfilerCallback3 ICorProfilerCallback3;
#define CB ICorProfilerCallback3 *self
typedef struct ICorProfilerCallback3Vtbl {
    HRESULT (*QueryInterface)(CB, REFIID riid, void **ppv);                           /* 0 */
    ULONG (*AddRef)(CB);                                                              /* 1 */
    ULONG (*Release)(CB);                                                             /* 2 */
    /* ICorProfilerCallback */
    HRESULT (*Initialize)(CB, IUnknown *pICorProfilerInfoUnk);                        /* 3 */
    HRESULT (*Shutdown)(CB);                                                          /* 4 */
    HRESULT (*AppDomainCreationStarted)(CB, AppDomainID id);                         /* 5 */
    HRESULT (*AppDomainCreationFinished)(CB, AppDomainID id, HRESULT hr);            /* 6 */
    HRESULT (*AppDomainShutdownStarted)(CB, AppDomainID id);                         /* 7 */
    HRESULT (*AppDomainShutdownFinished)(CB, AppDomainID id, HRESULT hr);            /* 8 */
    HRESULT (*AssemblyLoadStarted)(CB, AssemblyID id);                               /* 9 */
    HRESULT (*AssemblyLoadFinished)(CB, AssemblyID id, HRESULT hr);                  /* 10 */
    HRESULT (*AssemblyUnloadStarted)(CB, AssemblyID id);                             /* 11 */
    HRESULT (*AssemblyUnloadFinished)(CB, AssemblyID id, HRESULT hr);                /* 12 */
    HRESULT (*ModuleLoadStarted)(CB, ModuleID id);                                   /* 13 */
    HRESULT (*ModuleLoadFinished)(CB, ModuleID id, HRESULT hr);                      /* 14 */
    HRESULT (*ModuleUnloadStarted)(CB, ModuleID id);                                 /* 15 */
    HRESULT (*ModuleUnloadFinished)(CB, ModuleID id, HRESULT hr);                    /* 16 */
    HRESULT (*ModuleAttachedToAssembly)(CB, ModuleID m, AssemblyID a);               /* 17 */
    HRESULT (*ClassLoadStarted)(CB, ClassID id);                                     /* 18 */
    HRESULT (*ClassLoadFinished)(CB, ClassID id, HRESULT hr);                        /* 19 */
    HRESULT (*ClassUnloadStarted)(CB, ClassID id);                                   /* 20 */
    HRESULT (*ClassUnloadFinished)(CB, ClassID id, HRESULT hr);                      /* 21 */
    HRESULT (*FunctionUnloadStarted)(CB, FunctionID id);                             /* 22 */
    HRESULT (*JITCompilationStarted)(CB, FunctionID id, BOOL safe);                  /* 23 */
    HRESULT (*JITCompilationFinished)(CB, FunctionID id, HRESULT hr, BOOL safe);     /* 24 */
    HRESULT (*JITCachedFunctionSearchStarted)(CB, FunctionID id, BOOL *use);         /* 25 */
    HRESULT (*JITCachedFunctionSearchFinished)(CB, FunctionID id, int result);       /* 26 */
    HRESULT (*JITFunctionPitched)(CB, FunctionID id);                                /* 27 */
    HRESULT (*JITInlining)(CB, FunctionID caller, FunctionID callee, BOOL *inl);     /* 28 */
    HRESULT (*ThreadCreated)(CB, ThreadID id);                                       /* 29 */
    HRESULT (*ThreadDestroyed)(CB, ThreadID id);                                     /* 30 */
    HRESULT (*ThreadAssignedToOSThread)(CB, ThreadID id, DWORD os);                  /* 31 */
    HRESULT (*RemotingClientInvocationStarted)(CB);                                  /* 32 */
    HRESULT (*RemotingClientSendingMessage)(CB, GUID *cookie, BOOL async);           /* 33 */
    HRESULT (*RemotingClientReceivingReply)(CB, GUID *cookie, BOOL async);           /* 34 */
    HRESULT (*RemotingClientInvocationFinished)(CB);                                 /* 35 */
    HRESULT (*RemotingServerReceivingMessage)(CB, GUID *cookie, BOOL async);         /* 36 */
    HRESULT (*RemotingServerInvocationStarted)(CB);                                  /* 37 */
    HRESULT (*RemotingServerInvocationReturned)(CB);                                 /* 38 */
    HRESULT (*RemotingServerSendingReply)(CB, GUID *cookie, BOOL async);             /* 39 */
    HRESULT (*UnmanagedToManagedTransition)(CB, FunctionID id, int reason);          /* 40 */
    HRESULT (*ManagedToUnmanagedTransition)(CB, FunctionID id, int reason);          /* 41 */
    HRESULT (*RuntimeSuspendStarted)(CB, int reason);                                /* 42 */
    HRESULT (*RuntimeSuspendFinished)(CB);                                           /* 43 */
    HRESULT (*RuntimeSuspendAborted)(CB);                                            /* 44 */
    HRESULT (*RuntimeResumeStarted)(CB);                                             /* 45 */
    HRESULT (*RuntimeResumeFinished)(CB);                                            /* 46 */
    HRESULT (*RuntimeThreadSuspended)(CB, ThreadID id);                              /* 47 */
    HRESULT (*RuntimeThreadResumed)(CB, ThreadID id);                                /* 48 */
    HRESULT (*MovedReferences)(CB, ULONG n, ObjectID oldStart[], ObjectID newStart[],
                               ULONG len[]);                                         /* 49 */
    HRESULT (*ObjectAllocated)(CB, ObjectID obj, ClassID cls);                       /* 50 */
    HRESULT (*ObjectsAllocatedByClass)(CB, ULONG n, ClassID cls[], ULONG counts[]);  /* 51 */
    HRESULT (*ObjectReferences)(CB, ObjectID obj, ClassID cls, ULONG n,
                                ObjectID refs[]);                                    /* 52 */
    HRESULT (*RootReferences)(CB, ULONG n, ObjectID refs[]);                         /* 53 */
    HRESULT (*ExceptionThrown)(CB, ObjectID thrown);                                 /* 54 */
    HRESULT (*ExceptionSearchFunctionEnter)(CB, FunctionID id);                      /* 55 */
    HRESULT (*ExceptionSearchFunctionLeave)(CB);                                     /* 56 */
    HRESULT (*ExceptionSearchFilterEnter)(CB, FunctionID id);                        /* 57 */
    HRESULT (*ExceptionSearchFilterLeave)(CB);                                       /* 58 */
    HRESULT (*ExceptionSearchCatcherFound)(CB, FunctionID id);                       /* 59 */
    HRESULT (*ExceptionOSHandlerEnter)(CB, UINT_PTR unused);                         /* 60 */
    HRESULT (*ExceptionOSHandlerLeave)(CB, UINT_PTR unused);                         /* 61 */
    HRESULT (*ExceptionUnwindFunctionEnter)(CB, FunctionID id);                      /* 62 */
    HRESULT (*ExceptionUnwindFunctionLeave)(CB);                                     /* 63 */
    HRESULT (*ExceptionUnwindFinallyEnter)(CB, FunctionID id);                       /* 64 */
    HRESULT (*ExceptionUnwindFinallyLeave)(CB);                                      /* 65 */
    HRESULT (*ExceptionCatcherEnter)(CB, FunctionID id, ObjectID obj);               /* 66 */
    HRESULT (*ExceptionCatcherLeave)(CB);                                            /* 67 */
    HRESULT (*COMClassicVTableCreated)(CB, ClassID cls, REFGUID iid, void *vtbl,
                                       ULONG slots);                                 /* 68 */
    HRESULT (*COMClassicVTableDestroyed)(CB, ClassID cls, REFGUID iid, void *vtbl);  /* 69 */
    HRESULT (*ExceptionCLRCatcherFound)(CB);                                         /* 70 */
    HRESULT (*ExceptionCLRCatcherExecute)(CB);                                       /* 71 */
    /* ICorProfilerCallback2 */
    HRESULT (*ThreadNameChanged)(CB, ThreadID id, ULONG cch, WCHAR name[]);          /* 72 */
    HRESULT (*GarbageCollectionStarted)(CB, int gens, BOOL collected[], int reason); /* 73 */
    HRESULT (*SurvivingReferences)(CB, ULONG n, ObjectID start[], ULONG len[]);      /* 74 */
    HRESULT (*GarbageCollectionFinished)(CB);                                        /* 75 */
    HRESULT (*FinalizeableObjectQueued)(CB, DWORD flags, ObjectID obj);              /* 76 */
    HRESULT (*RootReferences2)(CB, ULONG n, ObjectID refs[], int kinds[], int flags[],
                               UINT_PTR ids[]);                                      /* 77 */
    HRESULT (*HandleCreated)(CB, GCHandleID h, ObjectID obj);                        /* 78 */
    HRESULT (*HandleDestroyed)(CB, GCHandleID h);                                    /* 79 */
    /* ICorProfilerCallback3 */
    HRESULT (*InitializeForAttach)(CB, IUnknown *info, void *data, UINT cb);         /* 80 */
    HRESULT (*ProfilerAttachComplete)(CB);                                           /* 81 */
    HRESULT (*ProfilerDetachSucceeded)(CB);                                          /* 82 */
    /* ICorProfilerCallback4 */
    HRESULT (*ReJITCompilationStarted)(CB, FunctionID id, ReJITID rejit, BOOL safe);  /* 83 */
    HRESULT (*GetReJITParameters)(CB, ModuleID mod, mdMethodDef tok,
                                  ICorProfilerFunctionControl *ctl);                 /* 84 */
    HRESULT (*ReJITCompilationFinished)(CB, FunctionID id, ReJITID rejit, HRESULT hr,
                                        BOOL safe);                                  /* 85 */
    HRESULT (*ReJITError)(CB, ModuleID mod, mdMethodDef tok, FunctionID id,
                          HRESULT hr);                                               /* 86 */
    HRESULT (*MovedReferences2)(CB, ULONG n, ObjectID oldStart[], ObjectID newStart[],
                                SIZE_T len[]);                                       /* 87 */
    HRESULT (*SurvivingReferences2)(CB, ULONG n, ObjectID start[], SIZE_T len[]);    /* 88 */
} ICorProfilerCallback3Vtbl;
#undef CB
struct ICorProfilerCallback3 {
    const ICorProfilerCallback3Vtbl *lpVtbl;
};

/* ------------------------------------------- ICorProfilerMethodEnum */

/* [idl] COR_PRF_METHOD and interface ICorProfilerMethodEnum : IUnknown
 * { Skip, Reset, Clone, GetCount, Next }. */
typedef struct COR_PRF_METHOD {
    ModuleID moduleId;
    mdMethodDef methodId;
} COR_PRF_METHOD;

typedef struct ICorProfilerMethodEnum ICorProfilerMethodEnum;
typedef struct ICorProfilerMethodEnumVtbl {
    HRESULT (*QueryInterface)(ICorProfilerMethodEnum *self, REFIID riid, void **ppv); /* 0 */
    ULONG (*AddRef)(ICorProfilerMethodEnum *self);                                    /* 1 */
    ULONG (*Release)(ICorProfilerMethodEnum *self);                                   /* 2 */
    void *Skip;                                                                       /* 3 */
    void *Reset;                                                                      /* 4 */
    void *Clone;                                                                      /* 5 */
    void *GetCount;                                                                   /* 6 */
    HRESULT (*Next)(ICorProfilerMethodEnum *self, ULONG celt, COR_PRF_METHOD elements[],
                    ULONG *pceltFetched);                                             /* 7 */
} ICorProfilerMethodEnumVtbl;
struct ICorProfilerMethodEnum {
    const ICorProfilerMethodEnumVtbl *lpVtbl;
};

/* ------------------------------------------- ICorProfilerModuleEnum */

/* [idl] interface ICorProfilerModuleEnum : IUnknown { Skip, Reset, Clone,
 * GetCount, Next }: what ICorProfilerInfo3::EnumModules hands out. The
 * caller Releases it. */
typedef struct ICorProfilerModuleEnum ICorProfilerModuleEnum;
typedef struct ICorProfilerModuleEnumVtbl {
    HRESULT (*QueryInterface)(ICorProfilerModuleEnum *self, REFIID riid, void **ppv); /* 0 */
    ULONG (*AddRef)(ICorProfilerModuleEnum *self);                                     /* 1 */
    ULONG (*Release)(ICorProfilerModuleEnum *self);                                    /* 2 */
    void *Skip;                                                                         /* 3 */
    void *Reset;                                                                        /* 4 */
    void *Clone;                                                                        /* 5 */
    HRESULT (*GetCount)(ICorProfilerModuleEnum *self, ULONG *pcelt);                   /* 6 */
    HRESULT (*Next)(ICorProfilerModuleEnum *self, ULONG celt, ModuleID ids[],
                    ULONG *pceltFetched);                                               /* 7 */
} ICorProfilerModuleEnumVtbl;
struct ICorProfilerModuleEnum {
    const ICorProfilerModuleEnumVtbl *lpVtbl;
};

/* ------------------------------------------- ICorProfilerThreadEnum */

/* [idl] interface ICorProfilerThreadEnum : IUnknown { Skip, Reset, Clone,
 * GetCount, Next }: what ICorProfilerInfo4::EnumThreads hands out (the
 * managed threads alive). The caller Releases it. */
typedef struct ICorProfilerThreadEnum ICorProfilerThreadEnum;
typedef struct ICorProfilerThreadEnumVtbl {
    HRESULT (*QueryInterface)(ICorProfilerThreadEnum *self, REFIID riid, void **ppv); /* 0 */
    ULONG (*AddRef)(ICorProfilerThreadEnum *self);                                     /* 1 */
    ULONG (*Release)(ICorProfilerThreadEnum *self);                                    /* 2 */
    void *Skip;                                                                         /* 3 */
    void *Reset;                                                                        /* 4 */
    void *Clone;                                                                        /* 5 */
    HRESULT (*GetCount)(ICorProfilerThreadEnum *self, ULONG *pcelt);                   /* 6 */
    HRESULT (*Next)(ICorProfilerThreadEnum *self, ULONG celt, ThreadID ids[],
                    ULONG *pceltFetched);                                               /* 7 */
} ICorProfilerThreadEnumVtbl;
struct ICorProfilerThreadEnum {
    const ICorProfilerThreadEnumVtbl *lpVtbl;
};

/* ------------------------------------------------ ICorProfilerInfo..15 */

/* One table for ICorProfilerInfo (slots 3-35), Info2 (36-56), Info3 (57-70),
 * Info4 (71-80), Info5 (81-82), Info6 (83), Info7 (84-86), Info8 (87-89),
 * Info9 (90-92), Info10 (93-98), Info11 (99-100), Info12 (101-107),
 * Info13 (108-110), Info14 (111-113), Info15 (114), in [idl] order.
 * Which of them the object really has depends on the interface we obtained
 * (profiler.c records the version); never call past it. */
struct IMethodMalloc; /* below: the allocator of new method bodies */
typedef struct ICorProfilerInfo ICorProfilerInfo;
#define PI ICorProfilerInfo *self
typedef struct ICorProfilerInfoVtbl {
    HRESULT (*QueryInterface)(PI, REFIID riid, void **ppv);                           /* 0 */
    ULONG (*AddRef)(PI);                                                              /* 1 */
    ULONG (*Release)(PI);                                                             /* 2 */
    /* ICorProfilerInfo */
    HRESULT (*GetClassFromObject)(PI, ObjectID objectId, ClassID *pClassId);          /* 3 */
    HRESULT (*GetClassFromToken)(PI, ModuleID moduleId, mdTypeDef typeDef,
                                 ClassID *pClassId);                                  /* 4 */
    void *GetCodeInfo;                                                                /* 5 */
    HRESULT (*GetEventMask)(PI, DWORD *pdwEvents);                                    /* 6 */
    void *GetFunctionFromIP;                                                          /* 7 */
    HRESULT (*GetFunctionFromToken)(PI, ModuleID moduleId, mdToken token,
                                    FunctionID *pFunctionId);                         /* 8 */
    void *GetHandleFromThread;                                                        /* 9 */
    void *GetObjectSize;                                                              /* 10 */
    HRESULT (*IsArrayClass)(PI, ClassID classId, CorElementType *pBaseElemType,
                            ClassID *pBaseClassId, ULONG *pcRank);                    /* 11 */
    HRESULT (*GetThreadInfo)(PI, ThreadID id, DWORD *os_thread_id);                  /* 12 */
    HRESULT (*GetCurrentThreadID)(PI, ThreadID *pThreadId);                           /* 13 */
    void *GetClassIDInfo;                                                             /* 14 */
    HRESULT (*GetFunctionInfo)(PI, FunctionID id, ClassID *pClassId, ModuleID *pModuleId,
                               mdToken *pToken);                                      /* 15 */
    HRESULT (*SetEventMask)(PI, DWORD dwEvents);                                      /* 16 */
    void *SetEnterLeaveFunctionHooks;                                                 /* 17 */
    void *SetFunctionIDMapper;                                                        /* 18 */
    HRESULT (*GetTokenAndMetaDataFromFunction)(PI, FunctionID id, REFIID riid,
                                               IUnknown **ppImport, mdToken *pToken); /* 19 */
    HRESULT (*GetModuleInfo)(PI, ModuleID id, const BYTE **ppBaseLoadAddress, ULONG cchName,
                             ULONG *pcchName, WCHAR szName[], AssemblyID *pAssemblyId); /* 20 */
    HRESULT (*GetModuleMetaData)(PI, ModuleID moduleId, DWORD dwOpenFlags, REFIID riid,
                                 IUnknown **ppOut);                                   /* 21 */
    HRESULT (*GetILFunctionBody)(PI, ModuleID moduleId, mdToken methodId,
                                 const BYTE **ppMethodHeader, ULONG *pcbMethodSize);  /* 22 */
    HRESULT (*GetILFunctionBodyAllocator)(PI, ModuleID moduleId,
                                          struct IMethodMalloc **ppMalloc);           /* 23 */
    HRESULT (*SetILFunctionBody)(PI, ModuleID moduleId, mdToken methodId,
                                 const BYTE *pbNewILMethodHeader);                    /* 24 */
    void *GetAppDomainInfo;                                                           /* 25 */
    HRESULT (*GetAssemblyInfo)(PI, AssemblyID id, ULONG cchName, ULONG *pcchName,    /* 26 */
                               WCHAR szName[], AppDomainID *domain, ModuleID *manifest);
    void *SetFunctionReJIT;                                                           /* 27 */
    void *ForceGC;                                                                    /* 28 */
    HRESULT (*SetILInstrumentedCodeMap)(PI, FunctionID id, BOOL fStartJit,
                                        ULONG cILMapEntries, COR_IL_MAP *map);        /* 29 */
    void *GetInprocInspectionInterface;                                               /* 30 */
    void *GetInprocInspectionIThisThread;                                             /* 31 */
    void *GetThreadContext;                                                           /* 32 */
    void *BeginInprocDebugging;                                                       /* 33 */
    void *EndInprocDebugging;                                                         /* 34 */
    void *GetILToNativeMapping;                                                       /* 35 */
    /* ICorProfilerInfo2 */
    HRESULT (*DoStackSnapshot)(PI, ThreadID thread, CtStackSnapshotCallback *callback,
                               ULONG32 infoFlags, void *clientData, BYTE context[],
                               ULONG32 contextSize);                                  /* 36 */
    void *SetEnterLeaveFunctionHooks2;                                                /* 37 */
    HRESULT (*GetFunctionInfo2)(PI, FunctionID funcId, COR_PRF_FRAME_INFO frameInfo,
                                ClassID *pClassId, ModuleID *pModuleId, mdToken *pToken,
                                ULONG32 cTypeArgs, ULONG32 *pcTypeArgs,
                                ClassID typeArgs[]);                                  /* 38 */
    void *GetStringLayout;                                                            /* 39 */
    HRESULT (*GetClassLayout)(PI, ClassID classID, COR_FIELD_OFFSET rFieldOffset[],
                              ULONG cFieldOffset, ULONG *pcFieldOffset,
                              ULONG *pulClassSize);                                   /* 40 */
    HRESULT (*GetClassIDInfo2)(PI, ClassID classId, ModuleID *pModuleId,
                               mdTypeDef *pTypeDefToken, ClassID *pParentClassId,
                               ULONG32 cNumTypeArgs, ULONG32 *pcNumTypeArgs,
                               ClassID typeArgs[]);                                   /* 41 */
    void *GetCodeInfo2;                                                               /* 42 */
    HRESULT (*GetClassFromTokenAndTypeArgs)(PI, ModuleID moduleID, mdTypeDef typeDef,
                                            ULONG32 cTypeArgs, ClassID typeArgs[],
                                            ClassID *pClassID);                       /* 43 */
    void *GetFunctionFromTokenAndTypeArgs;                                            /* 44 */
    void *EnumModuleFrozenObjects;                                                    /* 45 */
    void *GetArrayObjectInfo;                                                         /* 46 */
    void *GetBoxClassLayout;                                                          /* 47 */
    HRESULT (*GetThreadAppDomain)(PI, ThreadID threadId, AppDomainID *pAppDomainId);  /* 48 */
    void *GetRVAStaticAddress;                                                        /* 49 */
    void *GetAppDomainStaticAddress;                                                  /* 50 */
    void *GetThreadStaticAddress;                                                     /* 51 */
    void *GetContextStaticAddress;                                                    /* 52 */
    void *GetStaticFieldInfo;                                                         /* 53 */
    void *GetGenerationBounds;                                                        /* 54 */
    void *GetObjectGeneration;                                                        /* 55 */
    void *GetNotifiedExceptionClauseInfo;                                             /* 56 */
    /* ICorProfilerInfo3 */
    void *EnumJITedFunctions;                                                         /* 57 */
    HRESULT (*RequestProfilerDetach)(PI, DWORD expectedCompletionMs);                 /* 58 */
    HRESULT (*SetFunctionIDMapper2)(PI, FunctionIDMapper2 *pFunc, void *clientData);  /* 59 */
    HRESULT (*GetStringLayout2)(PI, ULONG *pStringLengthOffset, ULONG *pBufferOffset); /* 60 */
    HRESULT (*SetEnterLeaveFunctionHooks3)(PI, FunctionEnter3 *enter, FunctionLeave3 *leave,
                                           FunctionTailcall3 *tailcall);              /* 61 */
    HRESULT (*SetEnterLeaveFunctionHooks3WithInfo)(PI, FunctionEnter3WithInfo *enter,
                                                   FunctionLeave3WithInfo *leave,
                                                   FunctionTailcall3WithInfo *tailcall); /* 62 */
    HRESULT (*GetFunctionEnter3Info)(PI, FunctionID id, COR_PRF_ELT_INFO eltInfo,
                                     COR_PRF_FRAME_INFO *pFrameInfo, ULONG *pcbArgumentInfo,
                                     COR_PRF_FUNCTION_ARGUMENT_INFO *pArgumentInfo); /* 63 */
    HRESULT (*GetFunctionLeave3Info)(PI, FunctionID id, COR_PRF_ELT_INFO eltInfo,
                                     COR_PRF_FRAME_INFO *pFrameInfo,
                                     COR_PRF_FUNCTION_ARGUMENT_RANGE *pRetvalRange); /* 64 */
    HRESULT (*GetFunctionTailcall3Info)(PI, FunctionID id, COR_PRF_ELT_INFO eltInfo,
                                        COR_PRF_FRAME_INFO *pFrameInfo);              /* 65 */
    HRESULT (*EnumModules)(PI, ICorProfilerModuleEnum **ppEnum);                      /* 66 */
    HRESULT (*GetRuntimeInformation)(PI, USHORT *pClrInstanceId, int *pRuntimeType,
                                     USHORT *pMajor, USHORT *pMinor, USHORT *pBuild,
                                     USHORT *pQFE, ULONG cchVersion, ULONG *pcchVersion,
                                     WCHAR szVersion[]);                              /* 67 */
    HRESULT (*GetThreadStaticAddress2)(PI, ClassID classId, mdFieldDef fieldToken,
                                       AppDomainID appDomainId, ThreadID threadId,
                                       void **ppAddress);                             /* 68 */
    void *GetAppDomainsContainingModule;                                              /* 69 */
    void *GetModuleInfo2;                                                             /* 70 */
    /* ICorProfilerInfo4 */
    HRESULT (*EnumThreads)(PI, ICorProfilerThreadEnum **ppEnum);                      /* 71 */
    void *InitializeCurrentThread;                                                    /* 72 */
    HRESULT (*RequestReJIT)(PI, ULONG n, ModuleID mods[], mdMethodDef toks[]);       /* 73 */
    HRESULT (*RequestRevert)(PI, ULONG n, ModuleID mods[], mdMethodDef toks[],
                             HRESULT status[]);                                       /* 74 */
    void *GetCodeInfo3;                                                               /* 75 */
    void *GetFunctionFromIP2;                                                         /* 76 */
    void *GetReJITIDs;                                                                /* 77 */
    void *GetILToNativeMapping2;                                                      /* 78 */
    void *EnumJITedFunctions2;                                                        /* 79 */
    HRESULT (*GetObjectSize2)(PI, ObjectID objectId, size_t *pcSize);                /* 80 */
    /* ICorProfilerInfo5 */
    HRESULT (*GetEventMask2)(PI, DWORD *pdwEventsLow, DWORD *pdwEventsHigh);          /* 81 */
    HRESULT (*SetEventMask2)(PI, DWORD dwEventsLow, DWORD dwEventsHigh);              /* 82 */
    /* ICorProfilerInfo6 */
    HRESULT (*EnumNgenModuleMethodsInliningThisMethod)(PI, ModuleID inlinersModuleId,
                                                       ModuleID inlineeModuleId,
                                                       mdMethodDef inlineeMethodId,
                                                       BOOL *incompleteData,
                                                       ICorProfilerMethodEnum **ppEnum); /* 83 */
    /* ICorProfilerInfo7 */
    HRESULT (*ApplyMetaData)(PI, ModuleID mod);                                       /* 84 */
    void *GetInMemorySymbolsLength;                                                   /* 85 */
    void *ReadInMemorySymbols;                                                        /* 86 */
    /* ICorProfilerInfo8 */
    HRESULT (*IsFunctionDynamic)(PI, FunctionID id, BOOL *isDynamic);                 /* 87 */
    HRESULT (*GetFunctionFromIP3)(PI, const BYTE *ip, FunctionID *id,
                                  ReJITID *rejit);                                    /* 88 */
    void *GetDynamicFunctionInfo;                                                     /* 89 */
    /* ICorProfilerInfo9 */
    HRESULT (*GetNativeCodeStartAddresses)(PI, FunctionID id, ReJITID rejit, ULONG32 cap,
                                           ULONG32 *n, UINT_PTR starts[]);              /* 90 */
    HRESULT (*GetILToNativeMapping3)(PI, UINT_PTR start, ULONG32 cap, ULONG32 *n,
                                     COR_DEBUG_IL_TO_NATIVE_MAP map[]);               /* 91 */
    HRESULT (*GetCodeInfo4)(PI, UINT_PTR start, ULONG32 cap, ULONG32 *n,
                            COR_PRF_CODE_INFO infos[]);                               /* 92 */
    /* ICorProfilerInfo10 */
    void *EnumerateObjectReferences;                                                  /* 93 */
    void *IsFrozenObject;                                                             /* 94 */
    void *GetLOHObjectSizeThreshold;                                                  /* 95 */
    HRESULT (*RequestReJITWithInliners)(PI, DWORD flags, ULONG n, ModuleID mods[],
                                        mdMethodDef toks[]);                          /* 96 */
    void *SuspendRuntime;                                                             /* 97 */
    void *ResumeRuntime;                                                              /* 98 */
    /* ICorProfilerInfo11 */
    void *GetEnvironmentVariable;                                                     /* 99 */
    void *SetEnvironmentVariable;                                                     /* 100 */
    /* ICorProfilerInfo12 */
    void *EventPipeStartSession;                                                      /* 101 */
    void *EventPipeAddProviderToSession;                                              /* 102 */
    void *EventPipeStopSession;                                                       /* 103 */
    void *EventPipeCreateProvider;                                                    /* 104 */
    void *EventPipeGetProviderInfo;                                                   /* 105 */
    void *EventPipeDefineEvent;                                                       /* 106 */
    void *EventPipeWriteEvent;                                                        /* 107 */
    /* ICorProfilerInfo13 */
    void *CreateHandle;                                                               /* 108 */
    void *DestroyHandle;                                                              /* 109 */
    void *GetObjectIDFromHandle;                                                      /* 110 */
    /* ICorProfilerInfo14 */
    void *EnumerateNonGCObjects;                                                      /* 111 */
    void *GetNonGCHeapBounds;                                                         /* 112 */
    void *EventPipeCreateProvider2;                                                   /* 113 */
    /* ICorProfilerInfo15 */
    void *EnumerateGCHeapObjects;                                                     /* 114 */
} ICorProfilerInfoVtbl;
#undef PI
struct ICorProfilerInfo {
    const ICorProfilerInfoVtbl *lpVtbl;
};

/* ------------------------------------------------- IMetaDataImport(2) */

/* [cor] IMetaDataImport slots 3-64, IMetaDataImport2 65-72. One table for
 * both: slots 65-72 may be called only on a pointer obtained by a
 * QueryInterface for IID_IMetaDataImport2. */
typedef struct IMetaDataImport IMetaDataImport;
#define MI IMetaDataImport *self
typedef struct IMetaDataImportVtbl {
    HRESULT (*QueryInterface)(MI, REFIID riid, void **ppv);                           /* 0 */
    ULONG (*AddRef)(MI);                                                              /* 1 */
    ULONG (*Release)(MI);                                                             /* 2 */
    void (*CloseEnum)(MI, HCORENUM hEnum);                                            /* 3 */
    void *CountEnum;                                                                  /* 4 */
    void *ResetEnum;                                                                  /* 5 */
    HRESULT (*EnumTypeDefs)(MI, HCORENUM *phEnum, mdTypeDef rTypeDefs[], ULONG cMax,
                            ULONG *pcTypeDefs);                                       /* 6 */
    void *EnumInterfaceImpls;                                                         /* 7 */
    HRESULT (*EnumTypeRefs)(MI, HCORENUM *phEnum, mdTypeRef rTypeRefs[], ULONG cMax,
                            ULONG *pcTypeRefs);                                       /* 8 */
    HRESULT (*FindTypeDefByName)(MI, const WCHAR *szTypeDef, mdToken tkEnclosingClass,
                                 mdTypeDef *ptd);                                     /* 9 */
    HRESULT (*GetScopeProps)(MI, WCHAR *szName, ULONG cchName, ULONG *pchName,
                             GUID *pmvid);                                            /* 10 */
    void *GetModuleFromScope;                                                         /* 11 */
    HRESULT (*GetTypeDefProps)(MI, mdTypeDef td, WCHAR *szTypeDef, ULONG cchTypeDef,
                               ULONG *pchTypeDef, DWORD *pdwTypeDefFlags,
                               mdToken *ptkExtends);                                  /* 12 */
    void *GetInterfaceImplProps;                                                      /* 13 */
    HRESULT (*GetTypeRefProps)(MI, mdTypeRef tr, mdToken *ptkResolutionScope,
                               WCHAR *szName, ULONG cchName, ULONG *pchName);         /* 14 */
    void *ResolveTypeRef;                                                             /* 15 */
    void *EnumMembers;                                                                /* 16 */
    void *EnumMembersWithName;                                                        /* 17 */
    HRESULT (*EnumMethods)(MI, HCORENUM *phEnum, mdTypeDef cl, mdMethodDef rMethods[],
                           ULONG cMax, ULONG *pcTokens);                              /* 18 */
    HRESULT (*EnumMethodsWithName)(MI, HCORENUM *phEnum, mdTypeDef cl, const WCHAR *szName,
                                   mdMethodDef rMethods[], ULONG cMax,
                                   ULONG *pcTokens);                                  /* 19 */
    HRESULT (*EnumFields)(MI, HCORENUM *phEnum, mdTypeDef cl, mdFieldDef rFields[],
                          ULONG cMax, ULONG *pcTokens);                               /* 20 */
    void *EnumFieldsWithName;                                                         /* 21 */
    void *EnumParams;                                                                 /* 22 */
    void *EnumMemberRefs;                                                             /* 23 */
    void *EnumMethodImpls;                                                            /* 24 */
    void *EnumPermissionSets;                                                         /* 25 */
    void *FindMember;                                                                 /* 26 */
    void *FindMethod;                                                                 /* 27 */
    HRESULT (*FindField)(MI, mdTypeDef td, const WCHAR *szName, PCCOR_SIGNATURE pvSigBlob,
                         ULONG cbSigBlob, mdFieldDef *pmb);                           /* 28 */
    void *FindMemberRef;                                                              /* 29 */
    HRESULT (*GetMethodProps)(MI, mdMethodDef mb, mdTypeDef *pClass, WCHAR *szMethod,
                              ULONG cchMethod, ULONG *pchMethod, DWORD *pdwAttr,
                              PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob,
                              ULONG *pulCodeRVA, DWORD *pdwImplFlags);                /* 30 */
    HRESULT (*GetMemberRefProps)(MI, mdToken mr, mdToken *ptk, WCHAR *szMember,
                                 ULONG cchMember, ULONG *pchMember,
                                 PCCOR_SIGNATURE *ppvSigBlob, ULONG *pbSig);          /* 31 */
    void *EnumProperties;                                                             /* 32 */
    void *EnumEvents;                                                                 /* 33 */
    void *GetEventProps;                                                              /* 34 */
    void *EnumMethodSemantics;                                                        /* 35 */
    void *GetMethodSemantics;                                                         /* 36 */
    void *GetClassLayout;                                                             /* 37 */
    void *GetFieldMarshal;                                                            /* 38 */
    void *GetRVA;                                                                     /* 39 */
    void *GetPermissionSetProps;                                                      /* 40 */
    HRESULT (*GetSigFromToken)(MI, mdToken mdSig, PCCOR_SIGNATURE *ppvSig,
                               ULONG *pcbSig);                                        /* 41 */
    void *GetModuleRefProps;                                                          /* 42 */
    void *EnumModuleRefs;                                                             /* 43 */
    HRESULT (*GetTypeSpecFromToken)(MI, mdTypeSpec ts, PCCOR_SIGNATURE *ppvSig,
                                    ULONG *pcbSig);                                   /* 44 */
    void *GetNameFromToken;                                                           /* 45 */
    void *EnumUnresolvedMethods;                                                      /* 46 */
    void *GetUserString;                                                              /* 47 */
    void *GetPinvokeMap;                                                              /* 48 */
    void *EnumSignatures;                                                             /* 49 */
    void *EnumTypeSpecs;                                                              /* 50 */
    void *EnumUserStrings;                                                            /* 51 */
    HRESULT (*GetParamForMethodIndex)(MI, mdMethodDef md, ULONG ulParamSeq,
                                      mdParamDef *ppd);                               /* 52 */
    void *EnumCustomAttributes;                                                       /* 53 */
    void *GetCustomAttributeProps;                                                    /* 54 */
    void *FindTypeRef;                                                                /* 55 */
    void *GetMemberProps;                                                             /* 56 */
    HRESULT (*GetFieldProps)(MI, mdFieldDef mb, mdTypeDef *pClass, WCHAR *szField,
                             ULONG cchField, ULONG *pchField, DWORD *pdwAttr,
                             PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob,
                             DWORD *pdwCPlusTypeFlag, const void **ppValue,
                             ULONG *pcchValue);                                       /* 57 */
    void *GetPropertyProps;                                                           /* 58 */
    HRESULT (*GetParamProps)(MI, mdParamDef tk, mdMethodDef *pmd, ULONG *pulSequence,
                             WCHAR *szName, ULONG cchName, ULONG *pchName,
                             DWORD *pdwAttr, DWORD *pdwCPlusTypeFlag,
                             const void **ppValue, ULONG *pcchValue);                 /* 59 */
    HRESULT (*GetCustomAttributeByName)(MI, mdToken tkObj, const WCHAR *szName,
                                        const void **ppData, ULONG *pcbData);         /* 60 */
    void *IsValidToken;                                                               /* 61 */
    HRESULT (*GetNestedClassProps)(MI, mdTypeDef tdNested, mdTypeDef *ptdEnclosing);  /* 62 */
    void *GetNativeCallConvFromSig;                                                   /* 63 */
    void *IsGlobal;                                                                   /* 64 */
    /* IMetaDataImport2 */
    HRESULT (*EnumGenericParams)(MI, HCORENUM *phEnum, mdToken tk,
                                 mdGenericParam rGenericParams[], ULONG cMax,
                                 ULONG *pcGenericParams);                             /* 65 */
    HRESULT (*GetGenericParamProps)(MI, mdGenericParam gp, ULONG *pulParamSeq,
                                    DWORD *pdwParamFlags, mdToken *ptOwner, DWORD *reserved,
                                    WCHAR *wzname, ULONG cchName, ULONG *pchName);    /* 66 */
    HRESULT (*GetMethodSpecProps)(MI, mdToken mi, mdToken *tkParent,
                                  PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob);    /* 67 */
    void *EnumGenericParamConstraints;                                                /* 68 */
    void *GetGenericParamConstraintProps;                                             /* 69 */
    void *GetPEKind;                                                                  /* 70 */
    void *GetVersionString;                                                           /* 71 */
    void *EnumMethodSpecs;                                                            /* 72 */
} IMetaDataImportVtbl;
#undef MI
struct IMetaDataImport {
    const IMetaDataImportVtbl *lpVtbl;
};

/* ------------------------------------------------ IMetaDataAssemblyImport */

/* [cor] ASSEMBLYMETADATA: the version and culture of an assembly. */
typedef struct ASSEMBLYMETADATA {
    unsigned short usMajorVersion, usMinorVersion, usBuildNumber, usRevisionNumber;
    WCHAR *szLocale;
    ULONG cbLocale;
    DWORD *rProcessor;
    ULONG ulProcessor;
    void *rOS;
    ULONG ulOS;
} ASSEMBLYMETADATA;

/* [cor] IMetaDataAssemblyImport (QueryInterface on a module's
 * IMetaDataImport): the assembly's own definition, for its identity. */
typedef struct IMetaDataAssemblyImport IMetaDataAssemblyImport;
#define MA IMetaDataAssemblyImport *self
typedef struct IMetaDataAssemblyImportVtbl {
    HRESULT (*QueryInterface)(MA, REFIID riid, void **ppv);                           /* 0 */
    ULONG (*AddRef)(MA);                                                              /* 1 */
    ULONG (*Release)(MA);                                                             /* 2 */
    HRESULT (*GetAssemblyProps)(MA, mdToken mda, const void **ppbPublicKey,
                                ULONG *pcbPublicKey, ULONG *pulHashAlgId, WCHAR *szName,
                                ULONG cchName, ULONG *pchName, ASSEMBLYMETADATA *pMetaData,
                                DWORD *pdwAssemblyFlags);                             /* 3 */
    void *slots4_11[8];                                                               /* 4-11 */
    HRESULT (*GetAssemblyFromScope)(MA, mdToken *ptkAssembly);                        /* 12 */
    void *slots13_16[4];                                                              /* 13-16 */
} IMetaDataAssemblyImportVtbl;
#undef MA
struct IMetaDataAssemblyImport {
    const IMetaDataAssemblyImportVtbl *lpVtbl;
};

/* ------------------------------------------------------------------ IIDs */

/* Defined in corprof_iids.c. [idl] uuid(...) attributes, [cor] EXTERN_GUID,
 * and the COM base IIDs (IUnknown, IClassFactory). */
extern const IID IID_IUnknown;                 /* 00000000-0000-0000-C000-000000000046 */
extern const IID IID_IClassFactory;            /* 00000001-0000-0000-C000-000000000046 */
extern const IID IID_ICorProfilerCallback;     /* 176FBED1-A55C-4796-98CA-A9DA0EF883E7 */
extern const IID IID_ICorProfilerCallback2;    /* 8A8CC829-CCF2-49FE-BBAE-0F022228071A */
extern const IID IID_ICorProfilerCallback3;    /* 4FD2ED52-7731-4B8D-9469-03D2CC3086C5 */
extern const IID IID_ICorProfilerCallback4;    /* 7B63B2E3-107D-4D48-B2F6-F61E229470D2 */
extern const IID IID_ICorProfilerInfo3;        /* B555ED4F-452A-4E54-8B39-B5360BAD32A0 */
extern const IID IID_ICorProfilerInfo4;        /* 0D8FDCAA-6257-47BF-B1BF-94DAC88466EE */
extern const IID IID_ICorProfilerInfo5;        /* 07602928-CE38-4B83-81E7-74ADAF781214 */
extern const IID IID_ICorProfilerInfo6;        /* F30A070D-BFFB-46A7-B1D8-8781EF7B698A */
extern const IID IID_ICorProfilerInfo7;        /* 9AEECC0D-63E0-4187-8C00-E312F503F663 */
extern const IID IID_ICorProfilerInfo8;        /* C5AC80A6-782E-4716-8044-39598C60CFBF */
extern const IID IID_ICorProfilerInfo9;        /* 008170DB-F8CC-4796-9A51-DC8AA0B47012 */
extern const IID IID_ICorProfilerInfo10;       /* 2F1B5152-C869-40C9-AA5F-3ABE026BD720 */
extern const IID IID_ICorProfilerInfo11;       /* 06398876-8987-4154-B621-40A00D6E4D04 */
extern const IID IID_ICorProfilerInfo12;       /* 27B24CCD-1CB1-47C5-96EE-98190DC30959 */
extern const IID IID_ICorProfilerInfo13;       /* 6E6C7EE2-0701-4EC2-9D29-2E8733B66934 */
extern const IID IID_ICorProfilerInfo14;       /* F460E352-D76D-4FE9-835F-F6AF9D6E862D */
extern const IID IID_ICorProfilerInfo15;       /* B446462D-BD22-41DD-872D-DC714C49EB56 */
extern const IID IID_IMetaDataImport;          /* 7DAC8207-D3AE-4C75-9B67-92801A497D44 */
extern const IID IID_IMetaDataImport2;         /* FCE5EFA0-8BBA-4F8E-A036-8F2022B08466 */
extern const IID IID_IMetaDataAssemblyImport;  /* EE62470B-E94B-424E-9B7C-2F00C9249F93 */

/* ---------------------------------------- IMetaDataEmit, IMethodMalloc */

/* [cor] IMetaDataEmit: the slots the IL-probe engine calls (a TypeRef and
 * a StandAloneSig for its probes' calli); the others as placeholders. */
typedef struct IMetaDataEmit IMetaDataEmit;
#define ME IMetaDataEmit *self
typedef struct IMetaDataEmitVtbl {
    HRESULT (*QueryInterface)(ME, REFIID riid, void **ppv);                           /* 0 */
    ULONG (*AddRef)(ME);                                                              /* 1 */
    ULONG (*Release)(ME);                                                             /* 2 */
    void *slots3_11[9];                                                               /* 3-11 */
    HRESULT (*DefineTypeRefByName)(ME, mdToken tkResolutionScope, const WCHAR *szName,
                                   mdTypeRef *ptr);                                   /* 12 */
    void *DefineImportType;                                                           /* 13 */
    HRESULT (*DefineMemberRef)(ME, mdToken tkImport, const WCHAR *szName,
                               const uint8_t *pvSigBlob, ULONG cbSigBlob,
                               mdToken *pmr);                                         /* 14 */
    void *slots15_22[8];                                                              /* 15-22 */
    HRESULT (*GetTokenFromSig)(ME, const uint8_t *pvSig, ULONG cbSig,
                               mdToken *pmsig);                                       /* 23 */
    void *DefineModuleRef;                                                            /* 24 */
    void *SetParent;                                                                  /* 25 */
    HRESULT (*GetTokenFromTypeSpec)(ME, const uint8_t *pvSig, ULONG cbSig,
                                    mdToken *ptypespec);                              /* 26 */
    void *SaveToMemory;                                                               /* 27 */
    HRESULT (*DefineUserString)(ME, const WCHAR *szString, ULONG cchString,
                                mdToken *pstk);                                       /* 28 */
    void *slots29_51[23];                                                             /* 29-51 */
    /* IMetaDataEmit2 (through QueryInterface for IID_IMetaDataEmit2 only): */
    HRESULT (*DefineMethodSpec)(ME, mdToken tkParent, const uint8_t *pvSigBlob,
                                ULONG cbSigBlob, mdToken *pmi);                       /* 52 */
} IMetaDataEmitVtbl;
struct IMetaDataEmit {
    const IMetaDataEmitVtbl *lpVtbl;
};
#undef ME

/* [corprof] IMethodMalloc: memory for a new method body (SetILFunctionBody). */
typedef struct IMethodMalloc IMethodMalloc;
typedef struct IMethodMallocVtbl {
    HRESULT (*QueryInterface)(IMethodMalloc *self, REFIID riid, void **ppv);          /* 0 */
    ULONG (*AddRef)(IMethodMalloc *self);                                             /* 1 */
    ULONG (*Release)(IMethodMalloc *self);                                            /* 2 */
    void *(*Alloc)(IMethodMalloc *self, ULONG cb);                                    /* 3 */
} IMethodMallocVtbl;
struct IMethodMalloc {
    const IMethodMallocVtbl *lpVtbl;
};

extern const IID IID_IMetaDataEmit;            /* BA3FEE4C-ECB9-4E41-83B7-183FA41CD859 */
extern const IID IID_IMetaDataEmit2;           /* F5DD9950-F693-42E6-830E-7B833E8146A9 */

/* ------------------------------------------------------- slot assertions */

#define CT_SLOT(vtbl, member) (offsetof(vtbl, member) / sizeof(void *))

_Static_assert(sizeof(void *) == 8, "clrtrace supports 64-bit targets only");
_Static_assert(sizeof(GUID) == 16, "GUID layout");
_Static_assert(sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE) == 16, "argument range layout");
_Static_assert(offsetof(COR_PRF_FUNCTION_ARGUMENT_INFO, ranges) == 8, "argument info layout");

_Static_assert(CT_SLOT(IClassFactoryVtbl, CreateInstance) == 3, "IClassFactory");
_Static_assert(CT_SLOT(IClassFactoryVtbl, LockServer) == 4, "IClassFactory");

_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, Initialize) == 3, "Callback");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, Shutdown) == 4, "Callback");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, ModuleAttachedToAssembly) == 17, "Callback");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, FunctionUnloadStarted) == 22, "Callback");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, ThreadAssignedToOSThread) == 31, "Callback");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, UnmanagedToManagedTransition) == 40, "Callback");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, RuntimeThreadResumed) == 48, "Callback");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, ExceptionThrown) == 54, "Callback");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, ExceptionUnwindFunctionEnter) == 62, "Callback");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, ExceptionUnwindFunctionLeave) == 63, "Callback");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, ExceptionCLRCatcherExecute) == 71, "Callback");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, ThreadNameChanged) == 72, "Callback2");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, HandleDestroyed) == 79, "Callback2");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, InitializeForAttach) == 80, "Callback3");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, ProfilerDetachSucceeded) == 82, "Callback3");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, GetReJITParameters) == 84, "Callback4");
_Static_assert(CT_SLOT(ICorProfilerCallback3Vtbl, SurvivingReferences2) == 88, "Callback4");
_Static_assert(sizeof(ICorProfilerCallback3Vtbl) == 89 * sizeof(void *), "Callback4 size");
_Static_assert(CT_SLOT(ICorProfilerFunctionControlVtbl, SetILFunctionBody) == 4, "FunctionControl");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetFunctionFromToken) == 8, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, RequestProfilerDetach) == 58, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, RequestReJIT) == 73, "Info4");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, RequestRevert) == 74, "Info4");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, ApplyMetaData) == 84, "Info7");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, RequestReJITWithInliners) == 96, "Info10");

_Static_assert(sizeof(COR_FIELD_OFFSET) == 8, "COR_FIELD_OFFSET layout");
_Static_assert(CT_SLOT(ICorProfilerModuleEnumVtbl, GetCount) == 6, "ICorProfilerModuleEnum");
_Static_assert(CT_SLOT(ICorProfilerModuleEnumVtbl, Next) == 7, "ICorProfilerModuleEnum");

_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetClassFromObject) == 3, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetClassFromToken) == 4, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetEventMask) == 6, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, IsArrayClass) == 11, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, SetILInstrumentedCodeMap) == 29, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetFunctionInfo) == 15, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, SetEventMask) == 16, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetTokenAndMetaDataFromFunction) == 19, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetModuleInfo) == 20, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetModuleMetaData) == 21, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetILFunctionBody) == 22, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, SetILFunctionBody) == 24, "Info");
_Static_assert(CT_SLOT(IMetaDataEmitVtbl, DefineTypeRefByName) == 12, "IMetaDataEmit");
_Static_assert(CT_SLOT(IMetaDataEmitVtbl, GetTokenFromSig) == 23, "IMetaDataEmit");
_Static_assert(CT_SLOT(IMetaDataEmitVtbl, DefineMemberRef) == 14, "IMetaDataEmit");
_Static_assert(CT_SLOT(IMetaDataEmitVtbl, GetTokenFromTypeSpec) == 26, "IMetaDataEmit");
_Static_assert(CT_SLOT(IMetaDataEmitVtbl, DefineUserString) == 28, "IMetaDataEmit");
_Static_assert(CT_SLOT(IMetaDataEmitVtbl, DefineMethodSpec) == 52, "IMetaDataEmit2");
_Static_assert(CT_SLOT(IMethodMallocVtbl, Alloc) == 3, "IMethodMalloc");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetILToNativeMapping) == 35, "Info");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, DoStackSnapshot) == 36, "Info2");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetFunctionInfo2) == 38, "Info2");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetClassLayout) == 40, "Info2");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetClassIDInfo2) == 41, "Info2");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetClassFromTokenAndTypeArgs) == 43, "Info2");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetNotifiedExceptionClauseInfo) == 56, "Info2");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, EnumJITedFunctions) == 57, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, SetFunctionIDMapper2) == 59, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetStringLayout2) == 60, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, SetEnterLeaveFunctionHooks3) == 61, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, SetEnterLeaveFunctionHooks3WithInfo) == 62, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetFunctionEnter3Info) == 63, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetFunctionLeave3Info) == 64, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetFunctionTailcall3Info) == 65, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, EnumModules) == 66, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetRuntimeInformation) == 67, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetModuleInfo2) == 70, "Info3");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetObjectSize2) == 80, "Info4");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, EnumNgenModuleMethodsInliningThisMethod) == 83,
               "Info6");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, SetEventMask2) == 82, "Info5");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, IsFunctionDynamic) == 87, "Info8");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, GetEnvironmentVariable) == 99, "Info11");
_Static_assert(CT_SLOT(ICorProfilerInfoVtbl, EnumerateGCHeapObjects) == 114, "Info15");

_Static_assert(CT_SLOT(IMetaDataImportVtbl, CloseEnum) == 3, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, FindTypeDefByName) == 9, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetScopeProps) == 10, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetTypeDefProps) == 12, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetTypeRefProps) == 14, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, EnumFields) == 20, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, EnumMethodsWithName) == 19, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetMethodProps) == 30, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetMemberRefProps) == 31, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetSigFromToken) == 41, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, EnumTypeDefs) == 6, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, EnumMethods) == 18, "IMetaDataImport");
_Static_assert(CT_SLOT(ICorProfilerMethodEnumVtbl, Next) == 7, "ICorProfilerMethodEnum");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetTypeSpecFromToken) == 44, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetParamForMethodIndex) == 52, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetFieldProps) == 57, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetParamProps) == 59, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetCustomAttributeByName) == 60, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetNestedClassProps) == 62, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, IsGlobal) == 64, "IMetaDataImport");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, EnumGenericParams) == 65, "IMetaDataImport2");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetGenericParamProps) == 66, "IMetaDataImport2");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, GetMethodSpecProps) == 67, "IMetaDataImport2");
_Static_assert(CT_SLOT(IMetaDataImportVtbl, EnumMethodSpecs) == 72, "IMetaDataImport2");

#endif
