#!/usr/bin/python3
"""Runs one configure-time case generator, then gives each file it rewrote with the same bytes
back its old modification time.

    run_case_generator.py OUTDIR COMMAND...

CMake runs the case generators of this folder at every configure (tessera_generate_cases in
tests/corpus/case_generators.cmake), and they write all their files again each time. Their
network.onnx and inputs.npz are inputs of the build (onnx2hpp converts them into the headers the
corpus tests include), so a new time stamp on an unchanged file made ninja convert every case
again and rebuild about 300 corpus objects after a reconfigure that changed nothing. Here a file
whose bytes did not change keeps its time stamp; a new or changed file keeps the new one.
COMMAND's output and exit status pass through.
"""
import hashlib
import os
import subprocess
import sys


def snapshot(root):
    """path -> (size, atime_ns, mtime_ns, sha256) of every file under root."""
    files = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            status = os.stat(path)
            with open(path, 'rb') as f:
                digest = hashlib.file_digest(f, 'sha256').hexdigest()
            files[path] = (status.st_size, status.st_atime_ns, status.st_mtime_ns, digest)
    return files


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, command = sys.argv[1], sys.argv[2:]
    before = snapshot(root)
    status = subprocess.call(command)
    for path, (size, atime, mtime, digest) in before.items():
        try:
            now = os.stat(path)
        except FileNotFoundError:
            continue
        if now.st_mtime_ns == mtime or now.st_size != size:
            continue
        with open(path, 'rb') as f:
            if hashlib.file_digest(f, 'sha256').hexdigest() == digest:
                os.utime(path, ns=(atime, mtime))
    return status


if __name__ == '__main__':
    sys.exit(main())
