// xunit tests of tests/targets/Inject's client, run by tests/e2e/run_inject.sh
// with `dotnet test` under --inject: Send_answers fails with the fault
// injected into Client.Send; Count_adds, whose method has none, passes.
using System.Net.Http;
using Inject;
using Xunit;

namespace InjectTests
{
    public class ClientTests
    {
        [Fact]
        public void Send_answers()
        {
            var client = new Client();
            Assert.Equal("ok:hello", client.Send("hello"));
        }

        [Fact]
        public void Count_adds()
        {
            Assert.Equal(42, new Client().Count(41));
        }

        [Fact]
        public void Send_failure_is_an_HttpRequestException()
        {
            var client = new Client();
            try
            {
                client.Send("x");
            }
            catch (HttpRequestException e)
            {
                Assert.Equal("injected by clrtrace", e.Message);
                return;
            }
            Assert.Equal(0, client.Sent - 1); // no fault: Send ran once
        }
    }
}
