// End-to-end target for clrtrace's hard cases.
//
//   dotnet Hard.dll SCENARIO [ARGS...]
//
// Each scenario prints what it did (results, call counters) so the tests can
// compare the program's own count of a function's calls with the trace's.
// Every traced helper is [NoInlining] where the tests count it, although the
// profiler disables inlining anyway (the counts must not depend on it).
using System;

namespace Hard
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            string scenario = args.Length > 0 ? args[0] : "";
            switch (scenario)
            {
                case "exceptions": return Exceptions.Run();
                case "threads": return Threads.Run();
                case "async": return AsyncOps.Run();
                case "tailcalls": return TailCalls.Run(args.Length > 1 ? args[1] : null);
                case "jmp": return Jumps.Run(args.Length > 1 ? args[1] : null);
                case "interop": return Interop.Run();
                case "recursion": return Recursion.Run(args.Length > 1 ? int.Parse(args[1]) : 10000);
                case "exit": return Ending.Exit();
                case "unhandled": return Ending.Unhandled();
                case "loop": return Ending.Loop();
                case "ranking": return Ranking.Run();
                case "clock": return Clock.Run();
                case "spin": return Ending.Spin(args.Length > 1 ? int.Parse(args[1]) : 100000);
                case "gcstress":
                    return GcStress.Run(args.Length > 1 ? int.Parse(args[1]) : 20000,
                                        args.Length > 2 ? int.Parse(args[2]) : 4);
                case "stress":
                    return Stress.Run(args.Length > 1 ? long.Parse(args[1]) : 2000000,
                                      args.Length > 2 ? int.Parse(args[2]) : 16);
                default:
                    Console.Error.WriteLine("usage: Hard exceptions|threads|async|tailcalls|jmp|interop|recursion [N]|"
                                            + "exit|unhandled|loop|spin [N]|stress [CALLS [THREADS]]|gcstress [PER [THREADS]]");
                    return 2;
            }
        }
    }
}
