"""What every bench job shares: building the binary under test, making inputs and configs, the
commands both tools are timed with, running variants side by side, checking outputs, and writing
the report. The jobs themselves are in bench/jobs/, one module per job or family of jobs."""
