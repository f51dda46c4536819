// End-to-end target for clrtrace (tests/e2e/run_hello.sh).
//
// Every method here is called a known number of times, with int, double and
// string arguments and returns, so the trace can be checked against this
// source. NoInlining keeps the JIT from folding small methods into their
// callers (inlined methods get no enter/leave hooks). The program prints its
// results and exits with code 3, which the test also checks.
using System;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Demo
{
    public static class MathOps
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Add(int a, int b) => a + b;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Scale(double x, double k) => x * k;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Fib(int n) => n < 2 ? n : Fib(n - 1) + Fib(n - 2);

        // Throws for a zero divisor; the frame is left by unwinding, not by
        // a return, so the trace shows it closed by the exception.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Divide(int a, int b)
        {
            if (b == 0)
            {
                throw new ArgumentException("b must not be zero");
            }
            return a / b;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string TryDivide(int a, int b)
        {
            try
            {
                return Divide(a, b).ToString(CultureInfo.InvariantCulture);
            }
            catch (ArgumentException e)
            {
                return "error: " + e.Message;
            }
        }
    }

    public class Greeter
    {
        private readonly string _greeting;

        public Greeter(string greeting)
        {
            _greeting = greeting;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public string Greet(string name, int times)
        {
            string text = _greeting + ", " + name;
            for (int i = 1; i < times; i++)
            {
                text += "!";
            }
            return text;
        }

        public class Counter
        {
            public int Value;

            [MethodImpl(MethodImplOptions.NoInlining)]
            public int Bump(int by)
            {
                Value += by;
                return Value;
            }
        }
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            int sum = MathOps.Add(2, 3);
            double scaled = MathOps.Scale(1.5, 4.0);
            int fib = MathOps.Fib(5);
            Greeter greeter = new Greeter("Hello");
            string greeting = greeter.Greet("clrtrace", 3);
            Greeter.Counter counter = new Greeter.Counter();
            counter.Bump(4);
            int bumped = counter.Bump(6);
            string good = MathOps.TryDivide(7, 2);
            string bad = MathOps.TryDivide(1, 0);

            Console.WriteLine("sum=" + sum.ToString(CultureInfo.InvariantCulture));
            Console.WriteLine("scaled=" + scaled.ToString(CultureInfo.InvariantCulture));
            Console.WriteLine("fib=" + fib.ToString(CultureInfo.InvariantCulture));
            Console.WriteLine(greeting);
            Console.WriteLine("bumped=" + bumped.ToString(CultureInfo.InvariantCulture));
            Console.WriteLine("divide=" + good + "; " + bad);
            return 3;
        }
    }
}
