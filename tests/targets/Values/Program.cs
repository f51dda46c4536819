// End-to-end target for clrtrace's values (tests/e2e/run_values.sh).
//
// Calls every method of Kinds, Abi and the generic types once (a few twice)
// with values the test's expectations are written from, prints one line per
// result (invariant culture), and exits with code 7. A second thread makes
// one call so the trace holds two threads.
using System;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Demo
{
    public static class Worker
    {
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
        public static int Run(int n) => n * n;
    }

    public static class Program
    {
        private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

        private static void Show(string what, object value)
        {
            Console.WriteLine(what + "=" + Convert.ToString(value, Inv));
        }

        public static unsafe int Main(string[] args)
        {
            // Value kinds.
            Show("ints", Kinds.Ints(-8, 200, -300, 60000, -70000, 4000000000, -9000000000, 18000000000000000000));
            Show("chars", Kinds.Chars(true, false, 'x', '\n', '\''));
            Show("floats", Kinds.Floats(-4.3f, 1.5, 1e10f, 2.5e-7));
            Show("natives", Kinds.Natives(-42, 42));
            Show("money", Kinds.Money(19.99m, -0.500m));
            Show("wellknown", Kinds.WellKnown(
                new DateTime(2024, 5, 6, 7, 8, 9, DateTimeKind.Utc).AddTicks(1234567),
                new DateTime(1999, 12, 31, 23, 59, 59),
                new DateTime(2000, 1, 1, 0, 0, 0, DateTimeKind.Local),
                new TimeSpan(1, 2, 3, 4, 500), TimeSpan.FromMinutes(-90),
                new Guid("0f8fad5b-d9cb-469f-a165-70867728950e"), (Half)1.5, Int128.MinValue, UInt128.MaxValue));
            Show("simd", Kinds.Simd(System.Runtime.Intrinsics.Vector128.Create(1, 2, 3, 4),
                new System.Numerics.Vector2(1.5f, 2), new System.Numerics.Vector3(1, 2, 3),
                new System.Numerics.Vector4(1, 2, 3, 4),
                System.Runtime.Intrinsics.Vector64.Create((byte)1, 2, 3, 4, 5, 6, 7, 8),
                System.Runtime.Intrinsics.Vector256.Create(1.0, 2.0, 3.0, 4.0)));
            Span<int> ints = stackalloc int[] { 4, 5, 6 };
            long[] longs = new long[12];
            for (int i = 0; i < longs.Length; i++)
            {
                longs[i] = 10 * (i + 1);
            }
            Show("spans", Kinds.Spans("hello, span".AsSpan(0, 5), ints, default,
                new string('x', 100).AsSpan(), longs));
            Show("dates", Kinds.Dates(new[] { new DateTime(1, 1, 1), DateTime.MaxValue }, new DateTime(2038, 1, 19, 3, 14, 7), null));
            Show("dateonly", Kinds.DateAndTime(new DateOnly(2024, 2, 29), new TimeOnly(13, 45, 30),
                new TimeOnly(13, 45, 30).Add(TimeSpan.FromTicks(1234567)), new TimeOnly(0, 0, 0, 500),
                TimeOnly.MaxValue, new DateOnly(1, 1, 1), new TimeOnly(7, 5)).ToString("yyyy-MM-dd", Inv));
            Show("slices", Kinds.Slices(2, ^1, 1..3, ^2.., ..^1, .., ^3).ToString());
            Quad quad = default;
            Ten ten = default;
            Words words = default;
            for (int i = 0; i < 4; i++)
            {
                Unsafe.Add(ref Unsafe.As<Quad, int>(ref quad), i) = 2 * (i + 1);
            }
            for (int i = 0; i < 10; i++)
            {
                Unsafe.Add(ref Unsafe.As<Ten, long>(ref ten), i) = i + 1;
            }
            Unsafe.As<Words, string>(ref words) = "x";
            Unsafe.Add(ref Unsafe.As<Words, string>(ref words), 1) = "yz";
            Quad doubled = Kinds.InlineArrays(quad, ten, words);
            Show("inline", Unsafe.Add(ref Unsafe.As<Quad, int>(ref doubled), 3));
            // "abc" fills a builder of capacity 3; each Append then adds a chunk.
            var chunked = new System.Text.StringBuilder(3).Append("abc");
            chunked.Append("def").Append("ghij").Append('k');
            var longer = new System.Text.StringBuilder();
            for (int i = 0; i < 10; i++)
            {
                longer.Append("0123456789");
            }
            Show("builders", Kinds.Builders(new System.Text.StringBuilder("abcdef"), chunked, longer, null,
                new System.Text.StringBuilder("in \"object\"")));
            Show("strings", Kinds.Strings("Hello, test!", "", null, "tab\there \"quoted\" back\\slash"));
            Show("long", Kinds.LongString("0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"));
            Show("unicode", Kinds.Unicode("h\u00e9llo \u2713"));
            Show("describe", Kinds.Describe(new Circle { R = 2 }));
            Show("objects", Kinds.Objects(42, "text", null));
            Show("boxes", Kinds.Boxes(1.5, new DateTime(2024, 1, 2, 0, 0, 0, DateTimeKind.Utc), true, 7L, Color.Green));
            long[] many = new long[20];
            for (int i = 0; i < many.Length; i++)
            {
                many[i] = i + 1;
            }
            Show("arrays", Kinds.Arrays(new[] { 1, 2, 3 }, new[] { "a", "b" }, new double[0], null, many));
            Show("more", Kinds.MoreArrays(new[] { Color.Red, Color.Blue }, new Point[2], new int[2, 3]));
            Show("enums", Kinds.Enums(Color.Green, Tiny.Two, Wide.Low, Access.Read | Access.Write, Access.None, (Color)7));
            Show("nullables", Kinds.Nullables(42, null, new Point { X = 1, Y = 2 }, Color.Blue));
            Show("lines", Kinds.Lines(new Line { A = new Point { X = 1, Y = 2 }, B = new Point { X = 3, Y = 4 } }));
            Show("named", Kinds.TakeNamed(new Named { Name = "widget", Id = 7 }));
            var deep = new Level1
            {
                A = 1,
                Inner = new Level2 { B = 2, Inner = new Level3 { C = 3, Inner = new Level4 { D = 4, Inner = new Level5 { E = 5 } } } },
            };
            Show("deep", Kinds.Deep(deep));
            Show("warmer", Kinds.Warmer(new Temperature { Celsius = 21.5 }).Celsius);
            int counter = 10, result = -1;
            string text = "abc";
            var origin = new Point();
            Kinds.Refs(ref counter, out result, in origin, ref text);
            Show("refs", counter + " " + result + " " + text);
            int target = 77;
            Show("deref", Kinds.Deref(&target));
            Show("tryget", Kinds.TryGet("key", out int got) ? got : -1);
            long local = 5;
            long[] cell = { 5 };
            Show("inc", Kinds.Inc(ref local) + Kinds.Inc(ref cell[0]));
            Show("scale", Shapes.Scale(new Point { X = 1, Y = 2 }, 1.5).X);

            // this: class, struct, virtual, interface.
            Show("add", new Counter().Add(5));
            var v = new Vec { X = 3, Y = 4 };
            Show("length", v.Length());
            Show("tally", new Tally { Start = 1 }.Sum(100000) + " " + new Tallier { Start = 2 }.Sum(100000));
            Shape shape = new Circle { R = 2 };
            Show("area", shape.Area());
            IGreeter greeter = new English();
            Show("greet", greeter.Greet("Ann"));

            // Generics.
            var intBox = new Box<int>(5);
            Show("box int", intBox.Get());
            intBox.Set(6);
            var strBox = new Box<string>("hi");
            Show("box string", strBox.Get());
            strBox.Set("there");
            var circleBox = new Box<Circle>(new Circle { R = 1 });
            Show("box circle", circleBox.Get().R);
            var onNull = (Func<int, int>)Delegate.CreateDelegate(typeof(Func<int, int>), null,
                typeof(Maybe<string>).GetMethod("Answer")!);
            Show("null this", onNull(41));
            var pair = new Pair<int, string>(3, "three");
            Show("pair key", pair.Key());
            Show("pair value", pair.Value());
            Show("id int", Util.Id(5));
            Show("id string", Util.Id("five"));
            Show("id nested", Util.Id((new System.Collections.Generic.List<string> { "x" }, true)).Item2 ? 1 : 0);
            Show("unwrap", Util.Unwrap(new Wrapper<int> { Value = 9, Tag = 1 }));
            Show("count", Util.CountOf(new[] { 1.5, 2.5 }));
            Show("twice", Outer.Inner.Twice(21));
            Show("holder", new Outer<int>.Holder(3).Get());

            // The runtime's ABI cases.
            Show("simple", Abi.SimpleArgs(-123, -4.3f, "Hello, test!"));
            Show("intdouble", Abi.TakeIntDouble(new IntDouble { I = 7, D = 2.5 }));
            Show("big", Abi.TakeBig(Abi.MakeBig(1)));
            Show("intsonly", Abi.TakeInts(new IntsOnly { A = 1, B = 2, C = 3 }));
            var f2a = new Fp32x2 { X = 0.5f, Y = 1.25f };
            var f2b = new Fp32x2 { X = 2f, Y = -3f };
            Show("f2", Abi.Fp32x2Alone(f2a) + " " + Abi.Fp32x2Pair(f2a, f2b) + " " + Abi.Fp32x2Mixed(1, f2a, 0.25, f2b, 100));
            var f3a = new Fp32x3 { X = 0.5f, Y = 1.25f, Z = 2.5f };
            var f3b = new Fp32x3 { X = 2f, Y = -3f, Z = 4.75f };
            Show("f3", Abi.Fp32x3Alone(f3a) + " " + Abi.Fp32x3Pair(f3a, f3b) + " " + Abi.Fp32x3Mixed(1, f3a, 0.25, f3b, 100));
            var f4a = new Fp32x4 { X = 0.5f, Y = 1.25f, Z = 2.5f, W = 8f };
            var f4b = new Fp32x4 { X = 2f, Y = -3f, Z = 4.75f, W = -16f };
            Show("f4", Abi.Fp32x4Alone(f4a) + " " + Abi.Fp32x4Pair(f4a, f4b) + " " + Abi.Fp32x4Mixed(1, f4a, 0.25, f4b, 100));
            var d2a = new Fp64x2 { X = 0.5, Y = 1.25 };
            var d2b = new Fp64x2 { X = 2, Y = -3 };
            Show("d2", Abi.Fp64x2Alone(d2a) + " " + Abi.Fp64x2Pair(d2a, d2b) + " " + Abi.Fp64x2Mixed(1, d2a, 0.25, d2b, 100));
            var d3a = new Fp64x3 { X = 0.5, Y = 1.25, Z = 2.5 };
            var d3b = new Fp64x3 { X = 2, Y = -3, Z = 4.75 };
            Show("d3", Abi.Fp64x3Alone(d3a) + " " + Abi.Fp64x3Pair(d3a, d3b) + " " + Abi.Fp64x3Mixed(1, d3a, 0.25, d3b, 100));
            var d4a = new Fp64x4 { X = 0.5, Y = 1.25, Z = 2.5, W = 8 };
            var d4b = new Fp64x4 { X = 2, Y = -3, Z = 4.75, W = -16 };
            Show("d4", Abi.Fp64x4Alone(d4a) + " " + Abi.Fp64x4Pair(d4a, d4b) + " " + Abi.Fp64x4Mixed(1, d4a, 0.25, d4b, 100));
            Show("nine", Abi.NineStructs(100,
                new IntDouble { I = 1, D = 1.5 }, new IntDouble { I = 2, D = 2.5 }, new IntDouble { I = 3, D = 3.5 },
                new IntDouble { I = 4, D = 4.5 }, new IntDouble { I = 5, D = 5.5 }, new IntDouble { I = 6, D = 6.5 },
                new IntDouble { I = 7, D = 7.5 }, new IntDouble { I = 8, D = 8.5 }, new IntDouble { I = 9, D = 9.5 }));
            Show("retfloat", Abi.RetFloat(1.5f, -2.25f));
            Show("retdouble", Abi.RetDouble(0.5, 3.25));
            IntegerSse isse = Abi.MakeIntegerSse(-7, 0.125);
            SseInteger ssei = Abi.MakeSseInteger(0.375, 9);
            MixedSse msse = Abi.MakeMixedSse(-3, 1.5f, 2.75);
            SseMixed ssem = Abi.MakeSseMixed(-0.5, 11, 6.5f);
            MixedMixed mm = Abi.MakeMixedMixed(1, 2.5f, -3, 4.5f);
            Show("mixed", isse.A + " " + isse.B + " " + ssei.A + " " + ssei.B + " " + msse.A + " " + msse.B + " " + msse.C
                          + " " + ssem.A + " " + ssem.B + " " + ssem.C + " " + mm.A + " " + mm.B + " " + mm.C + " " + mm.D);
            Fp32x2 mf = Abi.MakeFp32x2(0.75f, -1.5f);
            Fp64x2 md = Abi.MakeFp64x2(-0.75, 1.5);
            IntsOnly mi = Abi.MakeInts(4, 5, 6000000000);
            Show("made", mf.X + " " + mf.Y + " " + md.X + " " + md.Y + " " + mi.A + " " + mi.B + " " + mi.C);

            // Issue 25 (Names.cs).
            Show("countdown", Names.SumCountdown(2));
            int rx = 1, ry = 2, rz = 3;
            Show("refro", Names.ReadOnlyRef(ref rx, in ry, ref rz));
            Show("person", Names.Person((7, "Ada")));
            Show("bounds", Names.Bounds(5, 3).Max);
            Show("nestedtuple", Names.Nested((1, ("x", 2))));
            Show("longtuple", Names.Long((1, 2, 3, 4, 5, 6, 7, 8, 9)));
            Show("partly", Names.Partly((4, 5)));
            Show("lookup", Names.Lookup(new System.Collections.Generic.Dictionary<string, System.Collections.Generic.List<int>>
                { ["a"] = new System.Collections.Generic.List<int> { 1, 2 } }, new System.Collections.Generic.List<int> { 3 }));

            // Issue 25: the BCL's everyday types (Everyday.cs).
            Everyday.Run(Show);

            // An exception leaving two traced frames.
            Show("caught", Thrower.Catch(3));

            // A second thread.
            int squared = 0;
            var thread = new Thread(() => squared = Worker.Run(12));
            thread.Start();
            thread.Join();
            Show("worker", squared);
            return 7;
        }
    }
}
