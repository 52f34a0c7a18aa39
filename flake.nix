{
  description = "stacklab: a reproducible lab that compares web backend stacks on equal terms";

  # nixpkgs gives the tools the lab does not pin itself (sqlite, shellcheck,
  # the Docker client, chromium, curl, jq) and the stacks' runtimes for the
  # dockerTools images. Go, oha and just are pinned to versions.json exactly,
  # from the same registries scripts/bootstrap uses, with their hashes there.
  # flake.lock holds the exact nixpkgs revision and its NAR hash.
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.11";

  outputs = { self, nixpkgs }:
    let
      system = "x86_64-linux";
      pkgs = import nixpkgs { inherit system; };
      lib = pkgs.lib;
      versions = builtins.fromJSON (builtins.readFile ./versions.json);
      hashes = versions.nix;

      # Go from the Go module proxy's toolchain zip: the same bytes `go`
      # fetches for GOTOOLCHAIN=go<version>.
      go = pkgs.stdenv.mkDerivation {
        pname = "go";
        version = versions.go;
        src = pkgs.fetchurl {
          url = "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go${versions.go}.linux-amd64.zip";
          hash = hashes.go_toolchain_zip;
        };
        nativeBuildInputs = [ pkgs.unzip ];
        unpackPhase = "unzip -q $src";
        dontStrip = true;
        dontPatchELF = true;
        installPhase = ''
          mkdir -p $out/share $out/bin
          mv golang.org/toolchain@*/ $out/share/go
          chmod +x $out/share/go/bin/* $out/share/go/pkg/tool/*/*
          ln -s $out/share/go/bin/go $out/share/go/bin/gofmt $out/bin/
        '';
      };

      # oha from its crates.io source and its own Cargo.lock.
      oha = pkgs.rustPlatform.buildRustPackage rec {
        pname = "oha";
        version = versions.oha;
        src = pkgs.fetchCrate {
          inherit pname version;
          hash = hashes.oha_crate;
        };
        cargoLock.lockFile = "${src}/Cargo.lock";
        doCheck = false;
      };

      # just: the binary the npm package rust-just ships (what bootstrap installs).
      just = pkgs.stdenv.mkDerivation {
        pname = "just";
        version = versions.just;
        src = pkgs.fetchurl {
          url = "https://registry.npmjs.org/rust-just-linux-x64/-/rust-just-linux-x64-${versions.just}.tgz";
          hash = hashes.just_npm;
        };
        nativeBuildInputs = [ pkgs.autoPatchelfHook ];
        installPhase = "install -Dm755 bin/just $out/bin/just";
      };

      buildGoModule = pkgs.buildGoModule.override { inherit go; };

      # vegeta, the capacity study's open-loop generator, from its source at
      # the pinned tag. Its two hashes are the ones nixpkgs' own vegeta
      # 12.13.0 package declares; no Nix here has built it (README.md).
      vegeta = buildGoModule {
        pname = "vegeta";
        version = versions.vegeta;
        src = pkgs.fetchFromGitHub {
          owner = "tsenart";
          repo = "vegeta";
          rev = "v${versions.vegeta}";
          hash = hashes.vegeta_src;
        };
        vendorHash = hashes.vegeta_vendor;
        subPackages = [ "." ];
        env.CGO_ENABLED = "0";
        ldflags = [ "-s" "-w" "-X main.Version=${versions.vegeta}" ];
        doCheck = false;
      };

      # The lab's own Go programs: probes, analysis, the seeder, the Go stack
      # and the mock upstream. One module, one vendor hash.
      labGo = { pname, subPackages, static ? false }:
        buildGoModule {
          inherit pname subPackages;
          version = self.shortRev or "dirty";
          src = lib.cleanSource ./.;
          vendorHash = hashes.go_vendor;
          env.CGO_ENABLED = if pname == "upstream" then "0" else "1";
          tags = [ "sqlite_omit_load_extension" "osusergo" "netgo" ];
          ldflags = [ "-s" "-w" "-buildid=" ]
            ++ lib.optionals static [ "-linkmode external" "-extldflags -static" ];
          nativeBuildInputs = lib.optionals static [ pkgs.glibc.static ];
          doCheck = false;
        };

      labTools = labGo {
        pname = "stacklab-tools";
        subPackages = [
          "stacks/seed" "stacks/imagefiles" "analysis/record" "analysis/summarize" "analysis/compare"
          "analysis/reproduce" "probes/cgsample" "probes/quiet" "probes/verify"
          "probes/dirty" "probes/poolwait" "probes/walstall" "probes/sqliteinfo"
        ];
      };

      goNethttp = labGo { pname = "go-nethttp"; subPackages = [ "stacks/go-nethttp" ]; static = true; };
      upstream = labGo { pname = "upstream"; subPackages = [ "stacks/upstream" ]; static = true; };

      rustAxum = pkgs.rustPlatform.buildRustPackage {
        pname = "rust-axum";
        version = "0";
        src = ./stacks/rust-axum;
        cargoLock.lockFile = ./stacks/rust-axum/Cargo.lock;
        doCheck = false;
      };

      image = name: contents: config:
        pkgs.dockerTools.buildLayeredImage {
          name = "stacklab/${name}";
          tag = "nix";
          inherit contents;
          config = config // { Env = [ "PORT=8080" "DATABASE_PATH=/data/app.db" ]; };
        };

      # The interpreted stacks' app folders, placed at /app as their Dockerfiles do.
      appAt = name: src: pkgs.runCommand "${name}-app" { } ''
        mkdir -p $out/app
        cp -r ${src}/. $out/app/
      '';

      # nixpkgs' own FastAPI and Rails are not the versions the Debian-built
      # images pin (requirements.txt, Debian's ruby-rails 6.1): these images are
      # the same app on nixpkgs' versions, and say so in their tag.
      pythonEnv = pkgs.python3.withPackages (ps: [ ps.fastapi ps.uvicorn ps.jinja2 ps.httpx ]);
      rubyEnv = pkgs.ruby.withPackages (ps: [ ps.rails ps.puma ps.sqlite3 ]);
      # Node 18 (what Debian's image runs) is gone from nixos-25.11, so the
      # Nix image runs Node 20. Every package comes from package-lock.json's
      # own `resolved` address and `integrity` hash (importNpmLock), so no
      # hash of the whole dependency tree has to be known in advance.
      # better-sqlite3 compiles against Node's own headers (npm_config_nodedir);
      # its prebuilt download fails in the sandbox and falls back to node-gyp.
      nodeApp = pkgs.buildNpmPackage {
        pname = "node-fastify";
        version = "0";
        src = ./stacks/node-fastify;
        nodejs = pkgs.nodejs_20;
        npmDeps = pkgs.importNpmLock { npmRoot = ./stacks/node-fastify; };
        npmConfigHook = pkgs.importNpmLock.npmConfigHook;
        nativeBuildInputs = [ pkgs.python3 ];
        env.npm_config_nodedir = pkgs.nodejs_20;
        dontNpmBuild = true;
      };
    in
    {
      packages.${system} = {
        inherit go oha just vegeta;
        tools = labTools;
        default = labTools;
        # `nix build .#images.go-nethttp && docker load < result`
        images = {
          go-nethttp = image "go-nethttp" [ goNethttp ] { Cmd = [ "${goNethttp}/bin/go-nethttp" ]; };
          upstream = image "upstream" [ upstream ] { Cmd = [ "${upstream}/bin/upstream" ]; };
          rust-axum = image "rust-axum" [ rustAxum pkgs.cacert ] { Cmd = [ "${rustAxum}/bin/stacklab-rust-axum" ]; };
          python-fastapi = image "python-fastapi" [ pythonEnv (appAt "python-fastapi" ./stacks/python-fastapi) ] {
            Cmd = [ "${pythonEnv}/bin/python3" "/app/serve.py" ];
            WorkingDir = "/app";
          };
          node-fastify = image "node-fastify" [ pkgs.nodejs_20 nodeApp ] {
            Cmd = [ "${pkgs.nodejs_20}/bin/node" "${nodeApp}/lib/node_modules/stacklab-node-fastify/server.js" ];
          };
          ruby-rails = image "ruby-rails" [ rubyEnv (appAt "ruby-rails" ./stacks/ruby-rails) ] {
            Cmd = [ "${rubyEnv}/bin/puma" "-C" "/app/config/puma.rb" ];
            WorkingDir = "/app";
          };
        };
      };

      devShells.${system}.default = pkgs.mkShell {
        packages = [
          go oha just vegeta
          pkgs.sqlite pkgs.shellcheck pkgs.docker-client pkgs.chromium
          pkgs.curl pkgs.jq pkgs.util-linux pkgs.procps pkgs.gcc
        ];
        shellHook = ''
          export STACKLAB_IN_NIX=1
        '';
      };
    };
}
