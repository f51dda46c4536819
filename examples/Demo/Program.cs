// The sample the README's main-job command traces (scripts/demo.sh).
using System;
using System.Collections.Generic;

namespace Demo
{
    public struct Point { public double X, Y; }
    public enum Mode { Fast, Safe }

    public class Shapes
    {
        public static Point Scale(Point p, double k) => new Point { X = p.X * k, Y = p.Y * k };
        public string Describe(Mode m, string label) => Util.Pad(label, 8).Trim() + ":" + m;
    }

    static class Util
    {
        public static string Pad(string s, int width) => s.PadRight(width);
        public static int Sum(int[] xs) { int t = 0; foreach (var x in xs) t += x; return t; }
        public static T First<T>(List<T> items) => items[0];
        public static bool TryParse(string s, out int value) => int.TryParse(s, out value);
    }

    static class Program
    {
        static int Main(string[] args)
        {
            var p = Shapes.Scale(new Point { X = 1, Y = 2 }, 1.5);
            var d = new Shapes().Describe(Mode.Safe, "run");
            int sum = Util.Sum(new[] { 1, 2, 3 });
            string first = Util.First(new List<string> { "alpha", "beta" });
            Util.TryParse("42", out int v);
            Console.WriteLine($"{p.X} {p.Y} {d} {sum} {first} {v}");
            return 0;
        }
    }
}
