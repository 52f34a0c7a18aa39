{
  description = "stacklab: a reproducible lab that compares web backend stacks on equal terms";

  # nixpkgs gives the tools the lab does not pin itself (sqlite, shellcheck,
  # the Docker client, chromium, curl, jq) and the stacks' runtimes for the
  # dockerTools images. Go, oha and just are pinned to versions.json exactly,
  # with their hashes there. No package registry's address is written here
  # (issue #14): crates come through nixpkgs' fetchCrate, and what only a
  # tool knows where to get (the Go toolchain, npm packages) is fetched by
  # that tool, as configured by default, in a fixed-output derivation.
  # flake.lock holds the exact nixpkgs revision and its NAR hash.
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.11";

  outputs = { self, nixpkgs }:
    let
      system = "x86_64-linux";
      pkgs = import nixpkgs { inherit system; };
      lib = pkgs.lib;
      versions = builtins.fromJSON (builtins.readFile ./versions.json);
      hashes = versions.nix;

      # The Go toolchain zip, fetched the way `go` fetches it for
      # GOTOOLCHAIN=go<version>: nixpkgs' go downloads the module
      # golang.org/toolchain from the GOPROXY it defaults to (or the caller's)
      # and checks it against the checksum database; the zip must then hash
      # to versions.json's go_toolchain_zip.
      goToolchainZip = pkgs.runCommand "go${versions.go}.linux-amd64.zip" {
        nativeBuildInputs = [ pkgs.go ];
        outputHash = hashes.go_toolchain_zip;
        outputHashMode = "flat";
        impureEnvVars = lib.fetchers.proxyImpureEnvVars ++ [ "GOPROXY" "GOSUMDB" ];
        SSL_CERT_FILE = "${pkgs.cacert}/etc/ssl/certs/ca-bundle.crt";
      } ''
        export HOME=$TMPDIR GOMODCACHE=$TMPDIR/mod GOTOOLCHAIN=local GOFLAGS=-modcacherw
        cd $TMPDIR
        go mod download -x golang.org/toolchain@v0.0.1-go${versions.go}.linux-amd64
        cp $GOMODCACHE/cache/download/golang.org/toolchain/@v/v0.0.1-go${versions.go}.linux-amd64.zip $out
      '';

      # Go from that zip: the same files `go` runs after a toolchain switch.
      go = pkgs.stdenv.mkDerivation {
        pname = "go";
        version = versions.go;
        src = goToolchainZip;
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

      # oha from its crate (nixpkgs' fetchCrate) and its own Cargo.lock.
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

      # just from its crate and its own Cargo.lock, like oha (bootstrap
      # installs the binary the npm package rust-just ships, built from the
      # same release).
      just = pkgs.rustPlatform.buildRustPackage rec {
        pname = "just";
        version = versions.just;
        src = pkgs.fetchCrate {
          inherit pname version;
          hash = hashes.just_crate;
        };
        cargoLock.lockFile = "${src}/Cargo.lock";
        doCheck = false;
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

      # k6, the users' generator, from its source at the pinned tag. Its
      # repository vendors its modules, so there is no vendor hash (as in
      # nixpkgs' own k6). The source's hash is NOT YET COMPUTED: Nix cannot
      # fetch here (README.md), and versions.json's nix.k6_src says so; until
      # it holds a sha256- hash, lib.fakeHash stands in, so `nix build .#k6`
      # fails with a hash mismatch that prints the hash to pin.
      k6 = buildGoModule {
        pname = "k6";
        version = versions.k6;
        src = pkgs.fetchFromGitHub {
          owner = "grafana";
          repo = "k6";
          rev = "v${versions.k6}";
          hash = if lib.hasPrefix "sha256-" hashes.k6_src then hashes.k6_src else lib.fakeHash;
        };
        vendorHash = null;
        subPackages = [ "." ];
        env.CGO_ENABLED = "0";
        ldflags = [ "-s" "-w" ];
        doCheck = false;
      };

      # scc, the size study's code counter, from the tools module
      # scripts/tools/scc (its go.mod requires versions.scc, as bootstrap
      # builds it). The module has no package of its own: scc's main is
      # built from the vendor folder, whose NAR hash is nix.scc_vendor
      # (scripts/nix-vendor-hash --check compares it).
      scc = buildGoModule {
        pname = "scc";
        version = versions.scc;
        src = ./scripts/tools/scc;
        vendorHash = hashes.scc_vendor;
        env.CGO_ENABLED = "0";
        buildPhase = ''
          runHook preBuild
          go build -mod=vendor -trimpath -ldflags "-s -w" -o scc github.com/boyter/scc/v3
          runHook postBuild
        '';
        installPhase = ''
          runHook preInstall
          install -Dm755 scc $out/bin/scc
          runHook postInstall
        '';
        doCheck = false;
      };

      # The lab's own Go programs: bench, analysis, probes, the seeder, the Go stack
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
          "bench/seed" "bench/imagefiles" "bench/mkimage"
          "bench/plan" "bench/record" "bench/host" "bench/stack" "bench/size" "bench/verify"
          "bench/quiet" "bench/canary" "bench/cgsample" "bench/hiccup" "bench/settle" "bench/pgsample" "bench/netpath" "bench/native"
          "analysis/summarize" "analysis/compare" "analysis/reproduce" "analysis/resultsindex" "analysis/guard"
          "probes/dirty" "probes/poolwait" "probes/walstall" "probes/sqliteinfo" "probes/readcost"
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
      # Nix image runs Node 20. package-lock.json records no registry address
      # (stacks/node-fastify/.npmrc), so importNpmLock, which fetches each
      # `resolved` URL, cannot read it as it is. Instead npm itself fetches
      # each package (`npm pack NAME@VERSION`, from the registry npm defaults
      # to, or the caller's NPM_CONFIG_REGISTRY) in a fixed-output derivation
      # whose hash is the lock's own `integrity`; the lock and package.json
      # then point at those files, as importNpmLock's would, for its
      # npmConfigHook. No hash of the whole dependency tree is needed.
      # better-sqlite3 compiles against Node's own headers (npm_config_nodedir);
      # its prebuilt download fails in the sandbox and falls back to node-gyp.
      nodeRoot = ./stacks/node-fastify;
      nodeLock = lib.importJSON (nodeRoot + "/package-lock.json");
      nodePackage = lib.importJSON (nodeRoot + "/package.json");
      npmTarball = path: module:
        let name = module.name or (lib.last (lib.splitString "node_modules/" path));
        in pkgs.runCommand "${lib.strings.sanitizeDerivationName name}-${module.version}.tgz" {
          nativeBuildInputs = [ pkgs.nodejs_20 ];
          outputHash = module.integrity;
          outputHashMode = "flat";
          impureEnvVars = lib.fetchers.proxyImpureEnvVars ++ [ "NPM_CONFIG_REGISTRY" ];
          NODE_EXTRA_CA_CERTS = "${pkgs.cacert}/etc/ssl/certs/ca-bundle.crt";
        } ''
          export HOME=$TMPDIR
          mkdir $TMPDIR/pack
          npm pack --pack-destination $TMPDIR/pack ${lib.escapeShellArg "${name}@${module.version}"}
          mv $TMPDIR/pack/*.tgz $out
        '';
      nodeLockFetched = nodeLock // {
        packages = lib.mapAttrs (path: module:
          if path != "" && module ? integrity
          then module // { resolved = "file:${npmTarball path module}"; }
          else module) nodeLock.packages;
      };
      nodeDeps = pkgs.runCommand "node-fastify-npm-deps" {
        passAsFile = [ "package" "packageLock" ];
        package = builtins.toJSON (nodePackage // {
          dependencies = lib.mapAttrs (name: _: nodeLockFetched.packages."node_modules/${name}".resolved)
            nodePackage.dependencies;
        });
        packageLock = builtins.toJSON nodeLockFetched;
      } ''
        mkdir $out
        cp "$packagePath" $out/package.json
        cp "$packageLockPath" $out/package-lock.json
      '';
      nodeApp = pkgs.buildNpmPackage {
        pname = "node-fastify";
        version = "0";
        src = nodeRoot;
        nodejs = pkgs.nodejs_20;
        npmDeps = nodeDeps;
        npmConfigHook = pkgs.importNpmLock.npmConfigHook;
        nativeBuildInputs = [ pkgs.python3 ];
        env.npm_config_nodedir = pkgs.nodejs_20;
        dontNpmBuild = true;
      };
    in
    {
      packages.${system} = {
        inherit go oha just vegeta k6 scc;
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
          go oha just vegeta k6 scc
          pkgs.sqlite pkgs.shellcheck pkgs.docker-client pkgs.chromium
          pkgs.curl pkgs.jq pkgs.util-linux pkgs.procps pkgs.gcc pkgs.openssh
        ];
        shellHook = ''
          export STACKLAB_IN_NIX=1
        '';
      };
    };
}
