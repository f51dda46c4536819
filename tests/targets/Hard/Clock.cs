// "clock": calls on two threads in a known order, for tests/e2e/run_held.sh
// (issue 25): the main thread makes 50000 calls of Tiny (in a slowly drained
// trace the tracer holds it for seconds, waiting for buffer room), then calls
// First; a new thread, which the tracer has not held, calls Second; once it
// has ended, the main thread calls Third. The TIME column must show First,
// Second, Third in that order, in that order of lines.
using System.Runtime.CompilerServices;
using System.Threading;

namespace Hard
{
    public static class Clock
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Tiny(int i) => i + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int First() => 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Second() => 2;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Third() => 3;

        public static int Run()
        {
            int s = 0;
            for (int i = 0; i < 50000; i++)
                s += Tiny(i);
            int order = First();
            var worker = new Thread(() => { order = order * 10 + Second(); });
            worker.Start();
            worker.Join();
            order = order * 10 + Third();
            System.Console.WriteLine("clock: " + s + " " + order);
            return 0;
        }
    }
}
