// Exceptions through traced frames: caught higher up, exception filters
// (accepting, declining, throwing), finally blocks (plain, with an exception
// thrown and caught inside the finally, and with one escaping from it),
// rethrow, a new exception thrown from a catch block, caught in the same
// method, thrown through framework frames (List<T>.ForEach), one whose
// message is not in Exception._message (a Message override), one whose
// message needs escaping, and inner exceptions: one wrapping its cause, an
// AggregateException of two, one of nine, and a chain six exceptions long.
//
// Each step is one call from Run followed by After(step): in the trace,
// After's line must sit at the same depth as the step's call.
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.CompilerServices;

namespace Hard
{
    public static class Exceptions
    {
        private static int s_handled, s_filters, s_finallies;

        public static int Run()
        {
            int total = 0;
            total += CatchHigher(1);
            After(1);
            total += WithFilter(2);
            After(2);
            total += FilterDeclines(3);
            After(3);
            total += WithFinally(4);
            After(4);
            total += Rethrow(5);
            After(5);
            total += SameMethod(6);
            After(6);
            total += AcrossFramework(7);
            After(7);
            total += FinallyWithInner(8);
            After(8);
            total += FilterThrows(9);
            After(9);
            total += FinallyThrows(10);
            After(10);
            total += Wraps(11);
            After(11);
            total += NoMessage(12);
            After(12);
            total += Escaped(13);
            After(13);
            total += Load(14);
            After(14);
            total += Batch(15);
            After(15);
            total += Many(16);
            After(16);
            total += Deep(17);
            After(17);
            Console.WriteLine("exceptions: total=" + total + " handled=" + s_handled + " filters=" + s_filters
                              + " finallies=" + s_finallies);
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int After(int step) => step;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Thrower(int n) => throw new InvalidOperationException("boom " + n);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Level3(int n) => Thrower(n) + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Level2(int n) => Level3(n) + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Level1(int n) => Level2(n) + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Handled(string message)
        {
            s_handled++;
            return message.Length;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool Filter(Exception e, int n, bool accept)
        {
            s_filters++;
            return accept;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Cleanup(int n) => n * 10;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Log(int n) => n;

        // 1. Thrown four frames down, caught here.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CatchHigher(int n)
        {
            try
            {
                return Level1(n);
            }
            catch (InvalidOperationException e)
            {
                return Handled(e.Message);
            }
        }

        // 2. A filter that accepts: it runs (first pass) on top of the
        // throwing frames, before they are unwound.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int WithFilter(int n)
        {
            try
            {
                return Level1(n);
            }
            catch (InvalidOperationException e) when (Filter(e, n, true))
            {
                return Handled(e.Message);
            }
        }

        // 3. A filter that declines; the caller catches.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int FilterDeclines(int n)
        {
            try
            {
                return DecliningFilter(n);
            }
            catch (InvalidOperationException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int DecliningFilter(int n)
        {
            try
            {
                return Level1(n);
            }
            catch (InvalidOperationException e) when (Filter(e, n, false))
            {
                return -1;
            }
        }

        // 4. A finally block on the way up calls Cleanup.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int WithFinally(int n)
        {
            try
            {
                return CleanupOuter(n);
            }
            catch (InvalidOperationException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CleanupOuter(int n)
        {
            try
            {
                return Level1(n);
            }
            finally
            {
                s_finallies++;
                Cleanup(n);
            }
        }

        // 5. Caught, logged, rethrown with `throw;`, caught by the caller.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Rethrow(int n)
        {
            try
            {
                return RethrowMiddle(n);
            }
            catch (InvalidOperationException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int RethrowMiddle(int n)
        {
            try
            {
                return Level1(n);
            }
            catch (InvalidOperationException)
            {
                Log(n);
                throw;
            }
        }

        // 6. Thrown and caught in the same method: no frame is unwound.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int SameMethod(int n)
        {
            int r = -1;
            try
            {
                if (n > 0)
                {
                    throw new InvalidOperationException("boom " + n);
                }
            }
            catch (InvalidOperationException e)
            {
                r = Handled(e.Message);
            }
            return r + Log(n);
        }

        // 7. Thrown through framework frames (List<int>.ForEach, not traced).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int AcrossFramework(int n)
        {
            var list = new List<int> { n };
            try
            {
                list.ForEach(Descend);
                return -1;
            }
            catch (InvalidOperationException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Descend(int x)
        {
            Level1(x);
        }

        // 8. A finally block that throws and catches an exception of its own
        // while the outer exception is being unwound.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int FinallyWithInner(int n)
        {
            try
            {
                return FinallyOuter(n);
            }
            catch (InvalidOperationException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int FinallyOuter(int n)
        {
            try
            {
                return Level1(n);
            }
            finally
            {
                s_finallies++;
                CatchHigher(n * 10);
            }
        }

        // 9. A filter whose own call throws: the runtime swallows that
        // exception (the filter counts as false) and the caller catches the
        // first one.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int FilterThrows(int n)
        {
            try
            {
                return ThrowingFilter(n);
            }
            catch (InvalidOperationException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int ThrowingFilter(int n)
        {
            try
            {
                return Level1(n);
            }
            catch (InvalidOperationException) when (BadFilter(n))
            {
                return -1;
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool BadFilter(int n)
        {
            s_filters++;
            return Thrower(n * 10) > 0;
        }
    
        // 10. A finally block throws a new exception while the first one is
        // unwinding; the new one replaces it and the caller catches it.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int FinallyThrows(int n)
        {
            try
            {
                return FinallyThrowsInner(n);
            }
            catch (InvalidOperationException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int FinallyThrowsInner(int n)
        {
            try
            {
                return Level1(n);
            }
            finally
            {
                s_finallies++;
                Thrower(n * 100);
            }
        }

        // 11. A catch block throws a new exception (wrapping the first).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Wraps(int n)
        {
            try
            {
                return WrapsInner(n);
            }
            catch (ArgumentException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int WrapsInner(int n)
        {
            try
            {
                return Level1(n);
            }
            catch (InvalidOperationException e)
            {
                throw new ArgumentException("wrapped " + e.Message, e);
            }
        }

        // 12. An exception whose message comes from a Message override:
        // Exception._message stays null.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int NoMessage(int n)
        {
            try
            {
                return QuietThrower(n);
            }
            catch (QuietException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int QuietThrower(int n) => throw new QuietException(n);

        // 13. A message with a newline and quotes.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Escaped(int n)
        {
            try
            {
                return EscapedThrower(n);
            }
            catch (FormatException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int EscapedThrower(int n) => throw new FormatException("line\n\"q\" " + n);

        // 14. A catch block wraps the exception it caught (its cause) in a new one.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Load(int n)
        {
            try
            {
                return LoadWrapped(n);
            }
            catch (InvalidOperationException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int LoadWrapped(int n)
        {
            try
            {
                return LoadConfig("cfg.json");
            }
            catch (FileNotFoundException e)
            {
                throw new InvalidOperationException("load failed: " + e.FileName, e);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int LoadConfig(string name) => throw new FileNotFoundException(name + " not found", name);

        // 15. An AggregateException of two: its Message is .NET's, built
        // from its own and theirs.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Batch(int n)
        {
            try
            {
                return BatchThrower(n);
            }
            catch (AggregateException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int BatchThrower(int n) =>
            throw new AggregateException("batch failed", new InvalidOperationException("bad a"),
                                         new FormatException("bad b"));

        // 16. An AggregateException of nine ("e1" to "e9").
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Many(int n)
        {
            try
            {
                return ManyThrower(n);
            }
            catch (AggregateException e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int ManyThrower(int n)
        {
            var inner = new Exception[9];
            for (int i = 0; i < inner.Length; i++)
            {
                inner[i] = new Exception("e" + (i + 1));
            }
            throw new AggregateException("many", inner);
        }

        // 17. An exception whose InnerException chain is five long: "d0"
        // wraps "d1", which wraps "d2", ... "d5".
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Deep(int n)
        {
            try
            {
                return DeepThrower(n);
            }
            catch (Exception e)
            {
                return Handled(e.Message);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int DeepThrower(int n)
        {
            Exception e = new Exception("d5");
            for (int i = 4; i >= 0; i--)
            {
                e = new Exception("d" + i, e);
            }
            throw e;
        }
    }

    public sealed class QuietException : Exception
    {
        private readonly int _n;

        public QuietException(int n)
        {
            _n = n;
        }

        public override string Message => "quiet " + _n;
    }
}
