// End-to-end target for clrtrace --locals (tests/e2e/run_locals.sh): each
// traced frame an exception leaves, its arguments and locals as the
// exception passed through it; and the program's own exception handling,
// which must not change: `when` filters with side effects (the order they
// run in is printed), finally blocks, rethrow, ExceptionDispatchInfo, an
// exception thrown from a finally, stackalloc, nested try regions. Each
// case prints what it saw, and each caught exception's stack trace as
// "Method line" per frame (the runtime's own, from this program's PDB).
// The exit code is 3.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;

namespace Faults
{
    public static class Work
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Thrower(int n)
        {
            int local = n * 10;
            if (n > 0)
                throw new InvalidOperationException("boom " + local);
            return local;
        }

        // Throws at i = 2 for {5, 7, -1, 3}: total 12, attempts 3.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Accumulate(int[] items)
        {
            int total = 0;
            int attempts = 0;
            for (int i = 0; i < items.Length; i++)
            {
                attempts++;
                if (items[i] < 0)
                    throw new ArgumentException("negative at " + i);
                total += items[i];
            }
            return total + attempts;
        }

        // The frame's values are those of the throw: state 2, not the 4 its
        // finally sets afterwards.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int WithFinally(int n)
        {
            int state = 1;
            try
            {
                state = 2;
                Thrower(n);
                state = 3;
                return state;
            }
            finally
            {
                state = 4;
                Console.WriteLine("finally state=" + state);
            }
        }

        static bool Note(string s, bool result)
        {
            Console.WriteLine(s);
            return result;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Middle(int n)
        {
            try
            {
                return Thrower(n);
            }
            catch (InvalidOperationException) when (Note("inner filter", false))
            {
                return 0;
            }
            finally
            {
                Console.WriteLine("middle finally");
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Filtered(int n)
        {
            try
            {
                return Middle(n);
            }
            catch (InvalidOperationException e) when (Note("outer filter " + e.Message, true))
            {
                return -1;
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Rethrower(int n)
        {
            try
            {
                Thrower(n);
            }
            catch (InvalidOperationException)
            {
                throw;
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void EdiRethrow(int n)
        {
            ExceptionDispatchInfo edi = null;
            try
            {
                Thrower(n);
            }
            catch (InvalidOperationException e)
            {
                edi = ExceptionDispatchInfo.Capture(e);
            }
            edi.Throw();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Stack(int n)
        {
            Span<int> buf = stackalloc int[4];
            int sum = 0;
            try
            {
                for (int i = 0; i < buf.Length; i++)
                    buf[i] = i * n;
                foreach (int v in buf)
                    sum += v;
                if (n > 2)
                    throw new InvalidOperationException("stack " + sum);
                return sum;
            }
            finally
            {
                Console.WriteLine("stack finally " + sum);
            }
        }

        // Under GC stress (Main's "stress" mode): a string and an object
        // made for this call, read by --locals while another thread forces
        // collections (a moved object read at its old address would show
        // another text).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Churn(int n)
        {
            string text = "v" + n;
            int[] pair = new[] { n, n * 2 };
            if (text.Length > 0 && pair[1] == n * 2)
                throw new InvalidOperationException(text);
            return pair[0];
        }

        // The finally's exception replaces the first one.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Replace(int n)
        {
            try
            {
                Thrower(n);
            }
            finally
            {
                throw new ApplicationException("from finally " + n);
            }
        }
    }

    public static class Program
    {
        static void Show(string name, Exception e)
        {
            Console.WriteLine(name + ": " + e.GetType().Name + " " + e.Message);
            foreach (StackFrame f in new StackTrace(e, true).GetFrames())
            {
                var m = f.GetMethod();
                if (m != null && f.GetFileLineNumber() > 0)
                    Console.WriteLine("  " + m.Name + " " + f.GetFileLineNumber());
            }
        }

        public static int Main(string[] args)
        {
            if (args.Length == 2 && args[0] == "stress")
            {
                int n = int.Parse(args[1]), caught = 0;
                bool done = false;
                var gc = new System.Threading.Thread(() =>
                {
                    while (!System.Threading.Volatile.Read(ref done))
                    {
                        var junk = new object[64];
                        for (int k = 0; k < junk.Length; k++)
                            junk[k] = new byte[k * 16];
                        GC.Collect(1, GCCollectionMode.Forced, true, true);
                        System.Threading.Thread.Sleep(1);
                    }
                });
                gc.Start();
                for (int i = 0; i < n; i++)
                    try { Work.Churn(i); } catch (InvalidOperationException e) { caught += e.Message == "v" + i ? 1 : 0; }
                System.Threading.Volatile.Write(ref done, true);
                gc.Join();
                Console.WriteLine("caught " + caught);
                return caught == n ? 0 : 1;
            }
            try { Work.Thrower(1); } catch (Exception e) { Show("thrower", e); }
            try { Work.Accumulate(new[] { 5, 7, -1, 3 }); } catch (Exception e) { Show("accumulate", e); }
            try { Work.WithFinally(2); } catch (Exception e) { Show("finally", e); }
            Console.WriteLine("filtered " + Work.Filtered(3));
            try { Work.Rethrower(4); } catch (Exception e) { Show("rethrow", e); }
            try { Work.EdiRethrow(5); } catch (Exception e) { Show("edi", e); }
            Console.WriteLine("stack " + Work.Stack(2));
            try { Work.Stack(3); } catch (Exception e) { Show("stack", e); }
            try { Work.Replace(6); } catch (Exception e) { Show("replace", e); }
            return 3;
        }
    }
}
