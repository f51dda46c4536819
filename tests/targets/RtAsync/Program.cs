// End-to-end target for runtime-async methods (.NET 11: the C# compiler's
// runtime-async, methods with MethodImplOptions.Async and no state machine;
// tests/e2e/run_rtasync.sh). Each async method below is called once by Main,
// which is not async; a gate (a TaskCompletionSource) keeps a method
// suspended until Main completes it. Prints one line and exits 5.
// `RtAsync impl` (not traced) prints each Work method's name and whether
// its MethodImplAttributes carry Async (0x2000: compiled runtime-async).
using System;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;

namespace Rt
{
    public static class Work
    {
        // Completes at once: awaiting a completed task does not suspend.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Quick(int x)
        {
            await Task.CompletedTask;
            return x + 1;
        }

        // Suspends on gate, then returns a + b + (what gate gives).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Sum(int a, int b, Task<int> gate)
        {
            int g = await gate;
            return a + b + g;
        }

        // Awaited by Outer (a runtime-async call: no task between them);
        // both suspend on gate.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Inner(Task<int> gate)
        {
            int g = await gate;
            return g * 2;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<string> Outer(string tag, Task<int> gate)
        {
            int v = await Inner(gate);
            return tag + v;
        }

        // Throws after it resumed.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> FailLate(Task<int> gate)
        {
            int g = await gate;
            throw new InvalidOperationException("late " + g);
        }

        // Throws before its first await.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> FailEarly(int n)
        {
            if (n > 0)
                throw new ArgumentException("early " + n);
            await Task.Yield();
            return n;
        }

        // No result (Task), suspends.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task Pause(Task<int> gate)
        {
            await gate;
        }

        // ValueTask<long>, suspends.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async ValueTask<long> Twice(long v, Task<int> gate)
        {
            await gate;
            return v * 2;
        }

        // Awaits FailLate, which throws after it resumed: the exception
        // comes out of ChainFail at its await.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> ChainFail(Task<int> gate)
        {
            int v = await FailLate(gate);
            return v + 1;
        }

        // Awaits FailLate and catches what it throws after it resumed:
        // returns the message's length.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Catcher(Task<int> gate)
        {
            try
            {
                return await FailLate(gate);
            }
            catch (InvalidOperationException e)
            {
                return e.Message.Length;
            }
        }

        // Resumes on a thread-pool thread (Task.Yield), calls Plain there,
        // and awaits Hop, which does the same.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Hop(int x)
        {
            await Task.Yield();
            return Plain(x) + 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> HopTwice(int x)
        {
            await Task.Yield();
            int a = await Hop(x);
            return a + Plain(1);
        }

        // A plain method the others are compared with.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Plain(int x) => x * 3;
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length == 1 && args[0] == "impl")
            {
                foreach (var m in typeof(Work).GetMethods(System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Static | System.Reflection.BindingFlags.DeclaredOnly))
                    Console.WriteLine(m.Name + " " + (((int)m.MethodImplementationFlags & 0x2000) != 0 ? "async" : "plain"));
                return 0;
            }

            int quick = Work.Quick(1).Result;

            var g1 = new TaskCompletionSource<int>();
            Task<int> sum = Work.Sum(20, 21, g1.Task);
            int plain = Work.Plain(4);
            g1.SetResult(1);

            var g2 = new TaskCompletionSource<int>();
            Task<string> outer = Work.Outer("v=", g2.Task);
            g2.SetResult(5);

            var g3 = new TaskCompletionSource<int>();
            Task<int> late = Work.FailLate(g3.Task);
            g3.SetResult(7);
            string lateMsg = "none";
            try
            {
                late.GetAwaiter().GetResult();
            }
            catch (InvalidOperationException e)
            {
                lateMsg = e.Message;
            }

            string earlyMsg = "none";
            try
            {
                Work.FailEarly(3).GetAwaiter().GetResult();
            }
            catch (ArgumentException e)
            {
                earlyMsg = e.Message;
            }

            var g4 = new TaskCompletionSource<int>();
            Task pause = Work.Pause(g4.Task);
            g4.SetResult(0);
            pause.Wait();

            var g5 = new TaskCompletionSource<int>();
            ValueTask<long> twice = Work.Twice(21, g5.Task);
            g5.SetResult(0);

            var g6 = new TaskCompletionSource<int>();
            Task<int> chain = Work.ChainFail(g6.Task);
            g6.SetResult(9);
            string chainMsg = "none";
            try
            {
                chain.GetAwaiter().GetResult();
            }
            catch (InvalidOperationException e)
            {
                chainMsg = e.Message;
            }

            var g7 = new TaskCompletionSource<int>();
            Task<int> caught = Work.Catcher(g7.Task);
            g7.SetResult(11);

            int hops = Work.HopTwice(2).Result;

            Console.WriteLine($"quick={quick} sum={sum.Result} plain={plain} outer={outer.Result} late={lateMsg} early={earlyMsg} pause={pause.Status} twice={twice.AsTask().Result} chain={chainMsg} caught={caught.Result} hops={hops}");
            return 5;
        }
    }
}
