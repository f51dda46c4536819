namespace FiltLib
{
    public static class Calc
    {
        public static int Twice(int x) => Add(x, x);

        public static int Add(int a, int b) => a + b;
    }
}
