// Interop and other call shapes: P/Invoke (getpid), reverse P/Invoke (libc
// qsort calling an [UnmanagedCallersOnly] comparer and a marshalled
// delegate), delegates (static, instance, closure, multicast), generic
// virtual methods (class and interface, value and reference type
// arguments) and static constructors (a class, and a generic class per
// instantiation). A DynamicMethod (no metadata, no hooks: documented) calls
// a traced method.
using System;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Hard
{
    public struct Pt
    {
        public int X;
        public int Y;
    }

    public abstract class Conv
    {
        public abstract T Pass<T>(T x);
    }

    public sealed class Ident : Conv
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public override T Pass<T>(T x) => x;
    }

    public interface IEcho
    {
        T Echo<T>(T x);
    }

    public sealed class Echoer : IEcho
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public T Echo<T>(T x) => x;
    }

    public static class Config
    {
        public static readonly int Value;

        static Config()
        {
            Value = Seed(41);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Seed(int x) => x + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Get() => Value;
    }

    public static class PerType<T>
    {
        public static readonly string Name;

        static PerType()
        {
            Name = Interop.TypeSeen(typeof(T).Name);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Get() => Name;
    }

    public sealed class Accumulator
    {
        public int Total;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Add(int x)
        {
            Total += x;
            return Total;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public void Tick(int x)
        {
            Interop.Ticks++;
        }
    }

    public static unsafe class Interop
    {
        public static int Ticks;
        private static int s_compares, s_delegateCompares, s_square, s_typesSeen;

        [UnmanagedCallersOnly]
        public static int Compare(int* a, int* b)
        {
            s_compares++;
            return *a < *b ? -1 : *a > *b ? 1 : 0;
        }

        public delegate int Comparer(IntPtr a, IntPtr b);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CompareMarshalled(IntPtr a, IntPtr b)
        {
            s_delegateCompares++;
            int x = *(int*)a, y = *(int*)b;
            return x < y ? -1 : x > y ? 1 : 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Pid() => Native.getpid();

        private static int[] Data()
        {
            var data = new int[24];
            for (int i = 0; i < data.Length; i++)
            {
                data[i] = (i * 7919 + 13) % 101;
            }
            return data;
        }

        private static bool Sorted(int[] data)
        {
            for (int i = 1; i < data.Length; i++)
            {
                if (data[i - 1] > data[i])
                {
                    return false;
                }
            }
            return true;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool SortNative(int[] data)
        {
            fixed (int* p = data)
            {
                Native.qsort(p, (nuint)data.Length, sizeof(int), &Compare);
            }
            return Sorted(data);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool SortDelegate(int[] data)
        {
            Comparer cmp = CompareMarshalled;
            IntPtr fp = Marshal.GetFunctionPointerForDelegate(cmp);
            fixed (int* p = data)
            {
                Native.qsort_delegate((IntPtr)p, (nuint)data.Length, sizeof(int), fp);
            }
            GC.KeepAlive(cmp);
            return Sorted(data);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Square(int x)
        {
            s_square++;
            return x * x;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void TickA(int x)
        {
            Ticks++;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void TickB(int x)
        {
            Ticks++;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string TypeSeen(string name)
        {
            s_typesSeen++;
            return name;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Delegates()
        {
            Func<int, int> viaStatic = Square;
            var acc = new Accumulator();
            Func<int, int> viaInstance = acc.Add;
            int k = 3;
            Func<int, int> closure = x => x * k + Square(x);
            Action<int> multi = TickA;
            multi += TickB;
            multi += acc.Tick;
            int r = 0;
            for (int i = 0; i < 5; i++)
            {
                r += viaStatic(i) + viaInstance(i) + closure(i);
                multi(i);
            }
            return r;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string GenericVirtuals()
        {
            Conv conv = new Ident();
            IEcho echo = new Echoer();
            int a = conv.Pass<int>(7);
            string b = conv.Pass<string>("seven");
            Pt c = conv.Pass<Pt>(new Pt { X = 1, Y = 2 });
            long d = echo.Echo<long>(8L);
            string e = echo.Echo<string>("eight");
            return a + " " + b + " " + c.X + "," + c.Y + " " + d + " " + e;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CallDynamic(Func<int, int> f, int x) => f(x);

        // DynTwice(x) = Square(x) * 2, built at run time.
        private static Func<int, int> MakeDynamic()
        {
            var dm = new DynamicMethod("DynTwice", typeof(int), new[] { typeof(int) }, typeof(Interop).Module);
            ILGenerator il = dm.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Call, typeof(Interop).GetMethod(nameof(Square)));
            il.Emit(OpCodes.Ldc_I4_2);
            il.Emit(OpCodes.Mul);
            il.Emit(OpCodes.Ret);
            return (Func<int, int>)dm.CreateDelegate(typeof(Func<int, int>));
        }

        public static int Run()
        {
            Console.WriteLine("interop: getpid " + (Pid() == Environment.ProcessId ? "matches" : "differs"));

            int[] d1 = Data();
            bool s1 = SortNative(d1);
            Console.WriteLine("interop: qsort unmanaged-callers-only sorted=" + s1 + " compares=" + s_compares);
            int[] d2 = Data();
            bool s2 = SortDelegate(d2);
            Console.WriteLine("interop: qsort delegate sorted=" + s2 + " compares=" + s_delegateCompares);

            int r = Delegates();
            Console.WriteLine("interop: delegates r=" + r + " square=" + s_square + " ticks=" + Ticks);

            Console.WriteLine("interop: generic virtuals " + GenericVirtuals());

            Console.WriteLine("interop: dynamic method " + CallDynamic(MakeDynamic(), 6) + " square=" + s_square);

            int v = Config.Get() + Config.Get();
            string names = PerType<int>.Get() + PerType<string>.Get() + PerType<int>.Get();
            Console.WriteLine("interop: cctor value=" + v + " names=" + names + " types-seen=" + s_typesSeen);
            return 0;
        }
    }
}
