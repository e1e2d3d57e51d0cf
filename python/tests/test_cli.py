import os
import shutil
import subprocess
import sys

import pytest

from phasegate import _cli


def test_main_lints_a_file(tmp_path, divergent_ptx, capsys):
    p = tmp_path / "k.ptx"
    p.write_text(divergent_ptx)
    assert _cli.main(["lint", str(p)]) == 1
    out = capsys.readouterr().out
    assert f"{p}:12:2: error[aligned_barrier_divergence]" in out


def test_main_usage(capsys):
    assert _cli.main([]) == 2
    assert "Usage: phasegate <COMMAND>" in capsys.readouterr().out
    assert _cli.main(["--version"]) == 0


def test_console_script(tmp_path, scale_ptx):
    exe = shutil.which("phasegate", path=os.path.dirname(sys.executable))
    if exe is None:
        pytest.skip("the console script is not installed beside this interpreter")
    p = tmp_path / "scale.ptx"
    p.write_text(scale_ptx)
    done = subprocess.run([exe, "lint", str(p)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok (1 kernel)" in done.stdout
    done = subprocess.run([exe, "sim", str(p), "--grid", "1", "--block", "32", "--arg", "buf:128",
                           "--arg", "buf:128", "--arg", "f32:2", "--arg", "u32:32"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
    assert "completed" in done.stdout
