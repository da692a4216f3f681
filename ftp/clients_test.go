package ftp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parlab/internal/testrun"
)

// testCert is a self-signed certificate for 127.0.0.1, made for the test,
// in memory (Config.TLS) and as PEM files (Config.CertFile and KeyFile).
type certs struct {
	cfg             *tls.Config
	certPEM, keyPEM string
}

func testCert(t *testing.T) certs {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "parlab test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := certs{cfg: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12},
		certPEM: filepath.Join(dir, "cert.pem"), keyPEM: filepath.Join(dir, "key.pem")}
	os.WriteFile(c.certPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(c.keyPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return c
}

func withTLS(tc certs) func(*Config) {
	return func(c *Config) { c.CertFile, c.KeyFile = tc.certPEM, tc.keyPEM }
}

// mixed is a server with TLS for clients in the clear and over TLS alike
// (Config.AllowPlain).
func mixed(c *Config) { c.AllowPlain = true }

// need finds a client program: under CI it must be there (.ci/run installs
// it), elsewhere its tests are skipped without it.
func need(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI has no %s: .ci/run must install it", name)
		}
		t.Skipf("no %s here", name)
	}
	return p
}

func runClient(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// checkUpDown checks that the client's download is the server's file and
// its upload arrived whole.
func checkUpDown(t *testing.T, root, down, upName string, up []byte) {
	t.Helper()
	want, _ := os.ReadFile(filepath.Join(root, "sub", "deep.bin"))
	got, err := os.ReadFile(down)
	if err != nil || sum(got) != sum(want) {
		t.Errorf("download: %d bytes (%v), want %d", len(got), err, len(want))
	}
	arrived, err := os.ReadFile(filepath.Join(root, upName))
	if err != nil || sum(arrived) != sum(up) {
		t.Errorf("upload %s: %d bytes (%v), want %d", upName, len(arrived), err, len(up))
	}
}

func upload(t *testing.T) (string, []byte) {
	b := make([]byte, 3<<20+17)
	rand.Read(b)
	p := filepath.Join(t.TempDir(), "up.bin")
	os.WriteFile(p, b, 0o644)
	return p, b
}

// curl, passive (EPSV) and active (EPRT), and explicit TLS (clientModes),
// in every model.
// clientModes is the modes an outside client tries against model m: all
// of them against goroutines and processes (a session in a goroutine, and
// in a process of its own, with its own TLS setup), the first (passive)
// against the other models, which differ from goroutines only in who runs
// a session: the protocol engine, active mode's data connection included,
// is one, and TestTLSEveryModel and TestClientEveryModel drive TLS and
// passive transfers in every model in process.
func clientModes[M any](m Model, modes []M) []M {
	if m == Goroutines || m == Processes {
		return modes
	}
	return modes[:1]
}

func TestCurl(t *testing.T) {
	testrun.FullRunOnly(t, "an outside client")
	curl := need(t, "curl")
	tc := testCert(t)
	for _, m := range models {
		t.Run(m.String(), func(t *testing.T) {
			_, addr, root := testServer(t, m, withTLS(tc), mixed)
			src, up := upload(t)
			base := "ftp://" + addr + "/"
			for _, mode := range clientModes(m, []struct {
				name string
				args []string
			}{
				{"passive", nil},
				{"active", []string{"-P", "127.0.0.1"}},
				{"tls", []string{"--ssl-reqd", "-k"}},
			}) {
				down := filepath.Join(t.TempDir(), "down.bin")
				common := append([]string{"-s", "-S", "--max-time", "30", "-u", "alice:secret"}, mode.args...)
				runClient(t, curl, append(common, "-o", down, base+"sub/deep.bin")...)
				runClient(t, curl, append(common, "-T", src, base+"up-"+mode.name+".bin")...)
				checkUpDown(t, root, down, "up-"+mode.name+".bin", up)
				list := runClient(t, curl, append(common, base)...)
				if !strings.Contains(list, "hello.txt") || !strings.Contains(list, "drwxr-xr-x") {
					t.Errorf("%s listing: %q", mode.name, list)
				}
			}
		})
	}
}

// Python's ftplib, passive and active, and FTP_TLS with PROT P, in every
// model.
func TestPythonFtplib(t *testing.T) {
	testrun.FullRunOnly(t, "an outside client")
	py := need(t, "python3")
	tc := testCert(t)
	// One interpreter a model, the three modes in turn (a Python start
	// can take half a second): argv is host, port, then down, src, name,
	// mode for each; each mode's NLST is printed on a line of its own.
	script := `
import ftplib, ssl, sys
# ftplib does not resume the control connection's TLS session on a data
# connection, which the server requires (Config.AllowNoReuse): the usual
# subclass that does
class Reused(ftplib.FTP_TLS):
    def ntransfercmd(self, cmd, rest=None):
        conn, size = ftplib.FTP.ntransfercmd(self, cmd, rest)
        if self._prot_p:
            conn = self.context.wrap_socket(conn, server_hostname=self.host, session=self.sock.session)
        return conn, size
host, port = sys.argv[1], int(sys.argv[2])
for i in range(3, len(sys.argv), 4):
    down, src, name, mode = sys.argv[i:i+4]
    if mode == "tls":
        ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
        f = Reused(context=ctx, timeout=20)
    else:
        f = ftplib.FTP(timeout=20)
    f.connect(host, port)
    f.login("alice", "secret")
    if mode == "tls":
        f.prot_p()
    f.set_pasv(mode != "active")
    with open(down, "wb") as out:
        f.retrbinary("RETR sub/deep.bin", out.write)
    with open(src, "rb") as inp:
        f.storbinary("STOR " + name, inp)
    print(" ".join(f.nlst()))
    f.quit()
`
	modes := []string{"passive", "active", "tls"}
	for _, m := range models {
		t.Run(m.String(), func(t *testing.T) {
			_, addr, root := testServer(t, m, withTLS(tc), mixed)
			host, port, _ := net.SplitHostPort(addr)
			src, up := upload(t)
			args := []string{"-c", script, host, port}
			var downs, names []string
			for _, mode := range modes {
				downs = append(downs, filepath.Join(t.TempDir(), "down.bin"))
				names = append(names, "py-"+mode+".bin")
				args = append(args, downs[len(downs)-1], src, names[len(names)-1], mode)
			}
			lines := strings.Split(strings.TrimSpace(runClient(t, py, args...)), "\n")
			if len(lines) != len(modes) {
				t.Fatalf("%d NLST lines for %d modes: %q", len(lines), len(modes), lines)
			}
			for i, mode := range modes {
				checkUpDown(t, root, downs[i], names[i], up)
				if !strings.Contains(lines[i], "hello.txt") || !strings.Contains(lines[i], names[i]) {
					t.Errorf("%s NLST: %q", mode, lines[i])
				}
			}
		})
	}
}

// lftp, which sends FEAT, AUTH, OPTS UTF8 and more: passive, active, and
// with TLS forced (clientModes), in every model.
func TestLftp(t *testing.T) {
	testrun.FullRunOnly(t, "an outside client")
	lftp := need(t, "lftp")
	tc := testCert(t)
	for _, m := range models {
		t.Run(m.String(), func(t *testing.T) {
			_, addr, root := testServer(t, m, withTLS(tc), mixed)
			host, port, _ := net.SplitHostPort(addr)
			src, up := upload(t)
			for _, mode := range clientModes(m, []string{"plain", "active", "tls"}) {
				down := filepath.Join(t.TempDir(), "down.bin")
				name := "lftp-" + mode + ".bin"
				settings := "set net:max-retries 1; set net:timeout 20; set ssl:verify-certificate no; set ftp:ssl-allow no; "
				if mode == "active" {
					settings += "set ftp:passive-mode false; "
				}
				if mode == "tls" {
					settings = "set net:max-retries 1; set net:timeout 20; set ssl:verify-certificate no; set ftp:ssl-force true; set ftp:ssl-protect-data true; "
				}
				out := runClient(t, lftp, "-u", "alice,secret", "-p", port, "-e",
					settings+"get sub/deep.bin -o "+down+"; put "+src+" -o "+name+"; cls -1; bye", host)
				checkUpDown(t, root, down, name, up)
				if !strings.Contains(out, "hello.txt") {
					t.Errorf("%s listing: %q", mode, out)
				}
			}
		})
	}
}

// Python's ftplib.abort() (it sends "ABOR\r\n" as urgent data) stops a
// download: 426 for the transfer, then 226, and the session goes on.
func TestPythonAbort(t *testing.T) {
	py := need(t, "python3")
	_, addr, root := testServer(t, Goroutines)
	os.WriteFile(filepath.Join(root, "big.bin"), make([]byte, 64<<20), 0o644)
	host, port, _ := net.SplitHostPort(addr)
	script := `
import ftplib, sys
f = ftplib.FTP(timeout=20)
f.connect(sys.argv[1], int(sys.argv[2]))
f.login("alice", "secret")
f.voidcmd("TYPE I")
conn = f.transfercmd("RETR big.bin")
conn.recv(4096)
first = f.abort()
second = f.getresp()
conn.close()
print(first[:3], second[:3], f.pwd())
f.quit()
`
	out := runClient(t, py, "-c", script, host, port)
	if strings.TrimSpace(out) != "426 226 /" {
		t.Errorf("ftplib.abort(): %q, want 426 226 /", out)
	}
}
