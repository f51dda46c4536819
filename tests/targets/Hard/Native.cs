// libc entry points the scenarios use: getpid/gettid (P/Invoke) and qsort
// (native code calling back into managed code: reverse P/Invoke).
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Hard
{
    public static unsafe class Native
    {
        [DllImport("libc", EntryPoint = "getpid")]
        internal static extern int getpid();

        [DllImport("libc", EntryPoint = "gettid")]
        internal static extern int gettid();

        // qsort with an unmanaged function pointer ([UnmanagedCallersOnly] target).
        [DllImport("libc", EntryPoint = "qsort")]
        internal static extern void qsort(int* items, nuint count, nuint size, delegate* unmanaged<int*, int*, int> compare);

        // qsort with a marshalled delegate (the runtime's reverse P/Invoke stub).
        [DllImport("libc", EntryPoint = "qsort")]
        internal static extern void qsort_delegate(IntPtr items, nuint count, nuint size, IntPtr compare);

        // The calling thread's OS id, as the trace's TID column shows it.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Tid() => gettid();
    }
}
