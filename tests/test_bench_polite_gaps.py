"""bench.polite_gaps: the time past each host's delay, read from nginx's access log."""

from __future__ import annotations

from pathlib import Path

from bench.polite_gaps import analyse, host_delays, main, read_requests


def _line(end: float, host: str, path: str, seconds: float = 0.0) -> str:
    return f'{end:.3f} 127.0.3.1 {host} "GET {path} HTTP/1.1" 200 512 "gossamer" {seconds:.3f}\n'


def test_excess_is_the_gap_past_the_delay_and_the_ideal_rate_has_none(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    lines = []
    for k in range(5):  # h0001 exactly on time; h0002 0.5 s late every time; one other host ignored
        lines.append(_line(100.001 + 5 * k, "h0001.many.web.test", f"/a{k}"))
        lines.append(_line(100.001 + 5.5 * k, "h0002.many.web.test", f"/b{k}"))
    lines.append(_line(101.0, "python.web.test", "/x"))
    lines.append("not a log line\n")
    log.write_text("".join(lines))
    requests = read_requests(log, 0, 1e12)
    assert sorted(requests) == ["h0001.many.web.test", "h0002.many.web.test"]
    result = analyse(requests, {}, 5.0)
    assert result["requests"] == 10 and result["busy_hosts"] == 2 and result["limit"] == 0.4
    assert result["excess_s"]["min"] == 0.0 and result["excess_s"]["max"] == 0.5
    assert result["ideal_pct_of_limit"] >= result["pct_of_limit"]
    assert read_requests(log, 0, 1e12, (2, 2)).keys() == {"h0002.many.web.test"}
    tsv = tmp_path / "hosts.tsv"  # the localweb's own list need not exist where the tests run
    tsv.write_text("#host\trobots\tcrawl_delay\nh0001.many.web.test\tallow\t-\n")
    common = ["--delay", "5", "--hosts-tsv", str(tsv)]
    assert main([str(log), *common, "--since", "0", "--json", str(tmp_path / "g.json")]) == 0
    assert (tmp_path / "g.json").exists()
    assert main([str(log), *common, "--since", "1e12"]) == 1


def test_a_crawl_delay_counts_raised_to_the_minimum(tmp_path: Path) -> None:
    tsv = tmp_path / "hosts.tsv"
    tsv.write_text("#host\trobots\tcrawl_delay\n"
                   "h0001.many.web.test\tallow\t-\nh0002.many.web.test\tdelay\t2\nh0003.many.web.test\tdelay\t9\n")
    assert host_delays(tsv, 5.0, 5.0) == {"h0001.many.web.test": 5.0, "h0002.many.web.test": 5.0,
                                          "h0003.many.web.test": 9.0}
    assert host_delays(tsv, 5.0, 0.0)["h0002.many.web.test"] == 2.0
