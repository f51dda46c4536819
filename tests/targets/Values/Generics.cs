// Generic code, shared and unshared. The runtime compiles one copy of a
// generic method per value-type instantiation (Box<int>) and one copy shared
// by all reference-type instantiations (Box<string> and Box<Circle> both run
// Box<System.__Canon>); Pair<int, string> shares Pair<int, __Canon>.
using System.Runtime.CompilerServices;

namespace Demo
{
    public class Box<T>
    {
        private T _value;

        public Box(T value)
        {
            _value = value;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public T Get() => _value;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public void Set(T value)
        {
            _value = value;
        }
    }

    public class Pair<TKey, TValue>
    {
        private readonly TKey _key;
        private readonly TValue _value;

        public Pair(TKey key, TValue value)
        {
            _key = key;
            _value = value;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public TKey Key() => _key;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public TValue Value() => _value;
    }

    // An instance method of a generic class that never touches `this`:
    // Program.cs calls Maybe<string>.Answer through a delegate closed over
    // null, as IL `call` may (C# itself never calls an instance method on
    // null). Untraced it returns x + 1.
    public class Maybe<T>
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Answer(int x) => x + 1;
    }

    public struct Wrapper<T>
    {
        public T Value;
        public int Tag;
    }

    public static class Util
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static T Id<T>(T x) => x;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static T Unwrap<T>(Wrapper<T> w) => w.Value;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CountOf<T>(T[] items) => items.Length;
    }

    public static class Outer
    {
        public static class Inner
        {
            [MethodImpl(MethodImplOptions.NoInlining)]
            public static int Twice(int x) => 2 * x;
        }
    }

    public class Outer<T>
    {
        public class Holder
        {
            private readonly T _item;

            public Holder(T item)
            {
                _item = item;
            }

            [MethodImpl(MethodImplOptions.NoInlining)]
            public T Get() => _item;
        }
    }
}
