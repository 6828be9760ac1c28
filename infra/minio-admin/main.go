// minio-admin is the smallest MinIO admin client the tests need: users and canned
// policies (e.g. a write-only user for bulk-export permission tests). It is built by
// infra/minioAdmin.ts into .local/bin/minio-admin; `mc` would do the same but takes far
// longer to build.
//
// Connection comes from the environment:
//
//	MINIO_ADMIN_ENDPOINT    http://127.0.0.1:9000
//	MINIO_ADMIN_ACCESS_KEY  the MinIO root user
//	MINIO_ADMIN_SECRET_KEY  the MinIO root password
package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"github.com/minio/madmin-go/v3"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

const usage = `usage: minio-admin <command> [args]
  add-user <access-key> <secret-key>
  remove-user <access-key>
  add-policy <name> <policy.json | ->
  remove-policy <name>
  attach-policy <policy> <user>
  server-info`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "minio-admin:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("missing command\n%s", usage)
	}
	command, rest := args[0], args[1:]
	need := map[string]int{
		"add-user": 2, "remove-user": 1, "add-policy": 2, "remove-policy": 1,
		"attach-policy": 2, "server-info": 0,
	}
	n, known := need[command]
	if !known {
		return fmt.Errorf("unknown command %q\n%s", command, usage)
	}
	if len(rest) != n {
		return fmt.Errorf("%s takes %d argument(s)\n%s", command, n, usage)
	}

	client, err := newClient()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	switch command {
	case "add-user":
		return client.AddUser(ctx, rest[0], rest[1])
	case "remove-user":
		return client.RemoveUser(ctx, rest[0])
	case "add-policy":
		policy, err := readPolicy(rest[1])
		if err != nil {
			return err
		}
		return client.AddCannedPolicy(ctx, rest[0], policy)
	case "remove-policy":
		return client.RemoveCannedPolicy(ctx, rest[0])
	case "attach-policy":
		_, err := client.AttachPolicy(ctx, madmin.PolicyAssociationReq{Policies: []string{rest[0]}, User: rest[1]})
		return err
	case "server-info":
		info, err := client.ServerInfo(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("mode=%s deploymentId=%s servers=%d\n", info.Mode, info.DeploymentID, len(info.Servers))
		return nil
	}
	return nil
}

func newClient() (*madmin.AdminClient, error) {
	endpoint := envOr("MINIO_ADMIN_ENDPOINT", "http://127.0.0.1:9000")
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("MINIO_ADMIN_ENDPOINT %q is not a URL like http://127.0.0.1:9000", endpoint)
	}
	access := os.Getenv("MINIO_ADMIN_ACCESS_KEY")
	secret := os.Getenv("MINIO_ADMIN_SECRET_KEY")
	if access == "" || secret == "" {
		return nil, fmt.Errorf("MINIO_ADMIN_ACCESS_KEY and MINIO_ADMIN_SECRET_KEY must be set (the MinIO root credentials)")
	}
	return madmin.NewWithOptions(u.Host, &madmin.Options{
		Creds:  credentials.NewStaticV4(access, secret, ""),
		Secure: u.Scheme == "https",
	})
}

// readPolicy reads a policy document from a file, or from stdin when the name is "-".
func readPolicy(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
