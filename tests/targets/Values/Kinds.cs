// Every kind of value the tracer decodes, one method per group. The values
// are chosen so that the expected text can be written by hand (see
// tests/e2e/run_values.sh); NoInlining keeps each call a real call.
using System;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Demo
{
    public enum Color { Red, Green, Blue }
    public enum Tiny : byte { Zero, One, Two }
    public enum Wide : long { Low = -5000000000, High = 5000000000 }

    [Flags]
    public enum Access : ushort { None = 0, Read = 1, Write = 2, Exec = 4 }

    public struct Point { public double X, Y; }
    public struct Line { public Point A, B; }
    public struct Named { public string Name; public int Id; }
    public struct Temperature { public double Celsius { get; set; } }

    // Inline arrays: one field repeated N times, shown as N elements.
    [InlineArray(4)] public struct Quad { private int _e0; }
    [InlineArray(10)] public struct Ten { private long _e0; }
    [InlineArray(2)] public struct Words { private string _e0; }

    // Nested five levels deep: the default CLRTRACE_STRUCT_DEPTH (4) shows
    // four levels and elides the fifth.
    public struct Level5 { public int E; }
    public struct Level4 { public int D; public Level5 Inner; }
    public struct Level3 { public int C; public Level4 Inner; }
    public struct Level2 { public int B; public Level3 Inner; }
    public struct Level1 { public int A; public Level2 Inner; }

    public struct Vec
    {
        public double X, Y;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public double Length() => Math.Sqrt(X * X + Y * Y);
    }

    // Instance methods with a loop, of a struct and of a class: the JIT
    // compiles each at tier 0 with on-stack replacement (OSR) into optimized
    // code; traced with values they must stay so (run_ilengine.sh reads the
    // JIT's summary). Sum(n) = Start + 0 + 1 + ... + (n - 1).
    public struct Tally
    {
        public long Start;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public long Sum(int n)
        {
            long s = Start;
            for (int i = 0; i < n; i++)
                s += i;
            return s;
        }
    }

    public class Tallier
    {
        public long Start;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public long Sum(int n)
        {
            long s = Start;
            for (int i = 0; i < n; i++)
                s += i;
            return s;
        }
    }

    public abstract class Shape
    {
        public abstract double Area();
    }

    public class Circle : Shape
    {
        public double R;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public override double Area() => 3.14 * R * R;
    }

    public interface IGreeter
    {
        string Greet(string name);
    }

    public class English : IGreeter
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public string Greet(string name) => "Hello, " + name;
    }

    public class Counter
    {
        private int _total;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Add(int by)
        {
            _total += by;
            return _total;
        }
    }

    public static class Kinds
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Ints(sbyte sb, byte b, short s, ushort us, int i, uint ui, long l, ulong ul)
            => l + i;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static char Chars(bool yes, bool no, char c, char nl, char q) => (char)(c + 1);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Floats(float f, double d, float big, double tiny) => d * 2;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static nint Natives(nint n, nuint u) => n * 2;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static decimal Money(decimal price, decimal qty) => price * 2;

        // The well-known structs, read as a person reads them.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static TimeSpan WellKnown(DateTime utc, DateTime plain, DateTime local, TimeSpan span, TimeSpan neg,
                                         Guid id, Half h, Int128 big, UInt128 ubig) => span + neg;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Dates(DateTime[] days, DateTime? maybe, Guid? none) => days.Length;

        // DateOnly and TimeOnly in ISO 8601 (a TimeOnly's fraction without
        // its trailing zeros), also boxed and in a Nullable.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static DateOnly DateAndTime(DateOnly day, TimeOnly at, TimeOnly precise, TimeOnly half,
                                           TimeOnly last, DateOnly? first, object boxed) => day.AddDays(1);

        // Inline arrays by element, as arrays read (8 elements by default).
        [MethodImpl(MethodImplOptions.NoInlining)]
        // (Elements through Unsafe, not the indexer: the compiler's indexer
        // helpers live in this assembly and would be traced too.)
        public static Quad InlineArrays(Quad q, Ten many, Words words)
        {
            Quad r = default;
            for (int i = 0; i < 4; i++)
            {
                Unsafe.Add(ref Unsafe.As<Quad, int>(ref r), i) = 2 * Unsafe.Add(ref Unsafe.As<Quad, int>(ref q), i);
            }
            return r;
        }

        // StringBuilders by their text (chunks followed from the last), cut
        // as strings are (64 characters by default), null, and in an object
        // slot.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Builders(System.Text.StringBuilder one, System.Text.StringBuilder chunked,
                                   System.Text.StringBuilder longer, System.Text.StringBuilder none,
                                   object boxed) => one.Length + chunked.Length;

        // Index and Range as .NET's ToString writes them: ^n from the end, a
        // Range with both ends always (^2.. is ^2..^0).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Range Slices(Index first, Index last, Range mid, Range tail, Range head, Range all,
                                   object boxed) => 1..^1;

        // SIMD vectors by element, as .NET writes them ("<1, 2, 3, 4>").
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Simd(Vector128<int> a, Vector2 p, Vector3 q, Vector4 r, Vector64<byte> b,
                               Vector256<double> d) => a.GetElement(0) + b.GetElement(7);

        // Spans: a char span as its text, others by element (valid while
        // the call runs); the default span is empty.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Spans(ReadOnlySpan<char> text, Span<int> ints, ReadOnlySpan<double> none,
                                ReadOnlySpan<char> cut, Span<long> many) => text.Length + ints.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Strings(string s, string empty, string none, string esc) => s.Length + empty.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int LongString(string text) => text.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Unicode(string s) => s.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Describe(Shape shape) => shape is Circle ? "circle" : "shape";

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Objects(object boxed, object text, object nothing) => boxed is int n ? n : -1;

        // Boxed values in object and interface slots: CoreLib primitives and
        // well-known structs by value; an enum stays type@address.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Boxes(object d, object day, object flag, IComparable c, object e) => 3;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Arrays(int[] ints, string[] words, double[] empty, int[] none, long[] many)
            => ints.Length + words.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int MoreArrays(Color[] colors, Point[] points, int[,] grid) => colors.Length + points.Length + grid.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Access Enums(Color c, Tiny t, Wide w, Access a, Access none, Color odd) => a | Access.Exec;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int? Nullables(int? some, int? none, Point? pt, Color? col) => some + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Lines(Line l) => l.B.X - l.A.X;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int TakeNamed(Named n) => n.Id;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Deep(Level1 v) => v.A + v.Inner.Inner.Inner.Inner.E;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Temperature Warmer(Temperature t) => new Temperature { Celsius = t.Celsius + 1 };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Refs(ref int counter, out int result, in Point origin, ref string text)
        {
            counter++;
            result = counter * 2;
            text += origin.X.ToString(System.Globalization.CultureInfo.InvariantCulture);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static unsafe int Deref(int* p) => *p;

        // Out and ref results read again at return (targets in the caller's
        // stack; a target in the heap is not).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool TryGet(string key, out int v)
        {
            v = key.Length * 4;
            return true;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Inc(ref long x) => ++x;
    }

    public static class Shapes
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Point Scale(Point p, double k) => new Point { X = p.X * k, Y = p.Y * k };
    }

    public static class Thrower
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Fail(int code)
        {
            throw new InvalidOperationException("code " + code);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Outer(int code) => Fail(code) + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Catch(int code)
        {
            try
            {
                return Outer(code).ToString();
            }
            catch (InvalidOperationException e)
            {
                return e.Message;
            }
        }
    }
}
