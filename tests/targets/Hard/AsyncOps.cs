// async/await: three levels of async methods whose continuations run on
// thread-pool threads, plus an exception thrown after an await and caught by
// an awaiting method.
//
// Every await here suspends, so the number of MoveNext calls is fixed: the
// innermost methods wait on a gate that Run opens only after the outer
// methods have suspended (its continuations run asynchronously, on the
// pool), and Task.Yield never completes synchronously. Per call, Leaf's
// state machine runs MoveNext twice (start, after the gate), Middle's three
// times (start, after Leaf, after Task.Yield), Top's twice (start, after
// Task.WhenAll); ThrowLater's and CatchAsync's twice each. Compute is called
// twice per Middle.
using System;
using System.Threading;
using System.Threading.Tasks;
using System.Runtime.CompilerServices;

namespace Hard
{
    public static class AsyncOps
    {
        public const int Count = 100;
        private static int s_compute;
        private static readonly TaskCompletionSource<bool> s_gate =
            new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        private static readonly TaskCompletionSource<bool> s_throwGate =
            new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

        public static int Run()
        {
            Task<int> top = Top(Count);
            s_gate.SetResult(true);
            int sum = top.GetAwaiter().GetResult();
            Task<int> caught = CatchAsync(5);
            s_throwGate.SetResult(true);
            Console.WriteLine("async: sum=" + sum + " compute=" + s_compute + " caught=" + caught.GetAwaiter().GetResult());
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Compute(int x)
        {
            Interlocked.Increment(ref s_compute);
            return x * 3;
        }

        public static async Task<int> Leaf(int i)
        {
            await s_gate.Task;
            return Compute(i);
        }

        public static async Task<int> Middle(int i)
        {
            int a = await Leaf(i);
            await Task.Yield();
            return a + Compute(a);
        }

        public static async Task<int> Top(int n)
        {
            var tasks = new Task<int>[n];
            for (int i = 0; i < n; i++)
            {
                tasks[i] = Middle(i);
            }
            int[] results = await Task.WhenAll(tasks);
            int sum = 0;
            foreach (int r in results)
            {
                sum += r;
            }
            return sum;
        }

        public static async Task<int> ThrowLater(int i)
        {
            await s_throwGate.Task;
            throw new InvalidOperationException("async " + i);
        }

        public static async Task<int> CatchAsync(int i)
        {
            try
            {
                return await ThrowLater(i);
            }
            catch (InvalidOperationException e)
            {
                return Exceptions.Handled(e.Message);
            }
        }
    }
}
