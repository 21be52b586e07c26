from scorekit.cli import run

run()
