"""The load-generator spike: which permissively licensed generator drives the lab (issue 54).

Each candidate sends the same two loads to the reference server (scripts/reference, Go's net/http
sleeping 100 ms) in interleaved rounds: A3's closed 500 users x 10 requests and an open 1,500 req/s
for 10 s. Per trial: the generator's own CPU (its process, waited for), the server's CPU (/proc),
the requests answered and the latency its own output gives. Run: see __main__.py."""
