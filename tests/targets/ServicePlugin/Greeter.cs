// Loaded by tests/targets/Service `late` once its flag file exists.
using System.Runtime.CompilerServices;

namespace Plugin;

public static class Greeter
{
    // Greet("ann", 3) -> "hello ann #3"
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Greet(string name, int n) => "hello " + name + " #" + n;
}
