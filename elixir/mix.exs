# The project's own compiler step (defined here: it must exist before lib/ is compiled).
defmodule Mix.Tasks.Compile.ChwireNif do
  @moduledoc """
  Builds the NIF crate (`elixir/native/chwire_nif`, a member of the chwire workspace) with
  `cargo build --release -p chwire-nif` in the workspace's own target directory, and copies the
  library to `priv/chwire_nif.so`, where `Chwire.Native` loads it.

  `CHWIRE_CARGO` names the cargo binary (default `cargo`); `CHWIRE_SKIP_CARGO=1` only copies
  a library that was built already (e.g. by `make build`).
  """
  use Mix.Task.Compiler

  @impl true
  def run(_args) do
    root = Path.expand("..", File.cwd!())
    cargo = System.get_env("CHWIRE_CARGO", "cargo")

    if System.get_env("CHWIRE_SKIP_CARGO") != "1" do
      {_, status} =
        System.cmd(cargo, ["build", "--release", "-p", "chwire-nif"],
          cd: root,
          into: IO.stream(:stdio, :line),
          stderr_to_stdout: true
        )

      if status != 0, do: Mix.raise("cargo build of the chwire NIF failed (status #{status})")
    end

    target = System.get_env("CARGO_TARGET_DIR", Path.join(root, "target"))
    src = Path.join([target, "release", "libchwire_nif.so"])
    dst = Path.join(File.cwd!(), "priv/chwire_nif.so")
    File.mkdir_p!(Path.dirname(dst))

    unless File.exists?(src), do: Mix.raise("#{src} was not built")

    # Copy only when it changed; a fresh file (not an overwrite) so a loaded copy stays intact.
    # The copy is made outside priv/ (under _build, the same file system) and renamed in:
    # priv/ never holds a half-written or transient file that Mix's copy of priv/ could meet.
    if not File.exists?(dst) or File.read!(src) != File.read!(dst) do
      tmp = Path.join(Mix.Project.build_path(), "chwire_nif.so.tmp")
      File.mkdir_p!(Path.dirname(tmp))
      File.cp!(src, tmp)
      File.rename!(tmp, dst)
    end

    # Link priv/ into _build (Mix does it before compiling only if priv/ existed then).
    Mix.Project.build_structure()
    {:ok, []}
  end
end

defmodule Chwire.MixProject do
  use Mix.Project

  # No Hex dependencies at all: the NIF is built by the project's own compiler step
  # (Mix.Tasks.Compile.ChwireNif runs cargo) and loaded with :erlang.load_nif/2.
  def project do
    [
      app: :chwire,
      version: "0.1.0",
      elixir: "~> 1.14",
      start_permanent: Mix.env() == :prod,
      compilers: [:chwire_nif] ++ Mix.compilers(),
      deps: [],
      test_paths: ["test"],
      elixirc_paths: ["lib"]
    ]
  end

  def application do
    [extra_applications: [:logger]]
  end
end
