// What a .NET engineer expects to read (issue 25): an iterator's MoveNext
// with its bool, `ref readonly` parameters, tuple element names, and a
// generic type nested in another written one way.
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Demo
{
    public static class Names
    {
        // An iterator: Countdown(2) yields 2 then 1; the third MoveNext
        // returns false.
        public static IEnumerable<int> Countdown(int n)
        {
            for (int i = n; i > 0; i--)
            {
                yield return i;
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int SumCountdown(int n)
        {
            int sum = 0;
            foreach (int x in Countdown(n))
            {
                sum += x;
            }
            return sum;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int ReadOnlyRef(ref readonly int x, in int y, ref int z) => x + y + z;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Person((int Id, string Name) p) => p.Name + p.Id;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static (int Min, int Max) Bounds(int a, int b) => a < b ? (a, b) : (b, a);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Nested((int A, (string B, int C) D) t) => t.A + t.D.C;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Long((int A1, int A2, int A3, int A4, int A5, int A6, int A7, int A8, int A9) t) =>
            t.A1 + t.A9;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Partly((int First, int) t) => t.First + t.Item2;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Lookup(Dictionary<string, List<int>> map, List<int> list) => map.Count + list.Count;
    }
}
