// End-to-end target for clrtrace --srcline (tests/e2e/run_srcline.sh): the
// line an exception is thrown at, and the line each frame it leaves is at.
//
// Each case catches its exception in Main and prints the exception's own
// stack trace, reduced to "Method line" per frame: what the runtime itself
// says (System.Diagnostics.StackTrace reading this program's PDB), which the
// test compares with the trace's lines. NoInlining keeps every frame.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;

namespace Lines
{
    public static class Chain
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Outer(int n)
        {
            int doubled = n * 2;
            int result = Middle(doubled);
            return result + 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Middle(int n)
        {
            Console.WriteLine("middle " + n);
            return Inner(n) - 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Inner(int n)
        {
            if (n > 10)
                throw new ArgumentOutOfRangeException(nameof(n), n, "too big");
            return n;
        }

        // 40 frames deep (n = 39 .. 0) when it throws: more than the 32
        // innermost traced frames (CT_EXC_LINES) that get a line.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Deep(int n)
        {
            if (n == 0)
                throw new InvalidOperationException("deep");
            return Deep(n - 1) + 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Deref(string s)
        {
            Console.WriteLine("deref");
            return s.Length;
        }
    }

    public static class Later
    {
        // Its state machine's body throws on Main's thread: the await does not
        // suspend, so the body has ended when the task is seen faulted (a body
        // resumed on a pool thread may still be returning when Main exits).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> FetchAsync(int id)
        {
            await Task.CompletedTask;
            if (id < 0)
                throw new InvalidOperationException("no such id: " + id);
            return id;
        }

        // Locals that live across an await (total, i) or a yield (k) are
        // fields of the state machine; e, used before its yield only, stays a
        // local of MoveNext.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> SumAsync(int n)
        {
            int total = 0;
            for (int i = 1; i <= n; i++)
            {
                await Task.CompletedTask;
                total += i;
            }
            return total;
        }

        public static System.Collections.Generic.IEnumerable<int> Evens(int n)
        {
            for (int k = 0; k < n; k++)
            {
                int e = k * 2;
                Console.Write("");
                yield return e;
            }
        }
    }

    public static class Program
    {
        // "Lines.Chain.Inner 36": each frame of e's stack trace with its line.
        static void Show(string name, Exception e)
        {
            Console.WriteLine(name + ": " + e.GetType().Name);
            foreach (StackFrame f in new StackTrace(e, true).GetFrames())
            {
                var m = f.GetMethod();
                if (m != null && f.GetFileLineNumber() > 0)
                    Console.WriteLine("  " + m.DeclaringType.FullName + "." + m.Name + " " + f.GetFileLineNumber());
            }
        }

        public static int Main()
        {
            try { Chain.Outer(10); } catch (Exception e) { Show("chain", e); }
            try { Chain.Deref(null); } catch (Exception e) { Show("deref", e); }
            try { Chain.Deep(39); } catch (Exception e) { Console.WriteLine("deep: " + e.Message); }
            try { Later.FetchAsync(-5).GetAwaiter().GetResult(); } catch (Exception e) { Show("async", e); }
            int evens = 0;
            foreach (int e in Later.Evens(3))
                evens += e;
            return Later.SumAsync(3).Result == 6 && evens == 6 ? 0 : 1;
        }
    }
}
