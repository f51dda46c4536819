// Deep recursion: Recurse(n) calls itself n times (n + 1 calls in all, n + 1
// frames deep). Up to 20000 it runs on the main thread; deeper on a thread
// with a 1 GiB stack.
using System;
using System.Threading;
using System.Runtime.CompilerServices;

namespace Hard
{
    public static class Recursion
    {
        public static int Run(int depth)
        {
            int result = -1;
            if (depth <= 20000)
            {
                result = Recurse(depth);
            }
            else
            {
                var t = new Thread(() => result = Recurse(depth), 1 << 30);
                t.Start();
                t.Join();
            }
            Console.WriteLine("recursion: depth=" + depth + " result=" + result);
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Recurse(int n) => n == 0 ? 0 : 1 + Recurse(n - 1);
    }
}
