// Command arcvsa-vcsim is the lab's vCenter: govmomi's simulator, with hosts the size of a VDI host.
//
// vcsim's own hosts have 4 GiB of memory and 2 cores, which no arcvsa appliance size fits, so a plan
// with an appliance could never pass its admission check against them. This command builds the same
// simulated inventory as vcsim from the same flags, with the hosts' cores (-host-cores) and memory
// (-host-memory-gib: one figure per cluster host in order, the last for the rest and for hosts added later).
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"log"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/simulator/esx"
	"github.com/vmware/govmomi/vim25/types"
)

func main() {
	model := simulator.VPX()
	flag.IntVar(&model.Datacenter, "dc", model.Datacenter, "datacenters")
	flag.IntVar(&model.Cluster, "cluster", model.Cluster, "clusters per datacenter")
	flag.IntVar(&model.ClusterHost, "host", model.ClusterHost, "hosts per cluster")
	flag.IntVar(&model.Host, "standalone-host", model.Host, "standalone hosts")
	flag.IntVar(&model.Datastore, "ds", model.Datastore, "local datastores")
	flag.IntVar(&model.Machine, "vm", model.Machine, "virtual machines per resource pool")
	flag.IntVar(&model.Portgroup, "pg", model.Portgroup, "port groups")
	listen := flag.String("l", "127.0.0.1:0", "listen address")
	user := flag.String("username", "", "login user name")
	pass := flag.String("password", "", "login password, or the name of a file holding it")
	cert := flag.String("tlscert", "", "TLS certificate file")
	key := flag.String("tlskey", "", "TLS key file")
	env := flag.String("E", "-", "file (that exists) to write GOVC_URL to, or - for stdout")
	stdinExit := flag.Bool("stdinexit", false, "exit when standard input closes")
	methodDelay := flag.String("method-delay", "", "milliseconds per method: 'PowerOnVM_Task:2000,...'")
	memoryList := flag.String("host-memory-gib", "128", "memory of the cluster hosts in order, GiB: '128,128,24'")
	cores := flag.Int("host-cores", 16, "physical cores of every host (two threads each)")
	flag.Parse()

	memory, err := parseMemory(*memoryList)
	if err != nil {
		log.Fatal(err)
	}
	if err := sizeHosts(memory[len(memory)-1], *cores); err != nil {
		log.Fatal(err)
	}
	if err := hostsReachableAt(*listen); err != nil {
		log.Fatal(err)
	}
	if *methodDelay != "" {
		delays, err := parseDelays(*methodDelay)
		if err != nil {
			log.Fatal(err)
		}
		model.DelayConfig.MethodDelay = delays
		simulator.TaskDelay.MethodDelay = delays
	}
	if err := model.Create(); err != nil {
		log.Fatal(err)
	}
	defer model.Remove()
	resizeClusterHosts(memory)

	u := &url.URL{Host: *listen}
	if *user != "" {
		u.User = url.UserPassword(secret(*user), secret(*pass))
	}
	model.Service.Listen = u
	model.Service.TLS = new(tls.Config)
	if *cert != "" {
		pair, err := tls.LoadX509KeyPair(*cert, *key)
		if err != nil {
			log.Fatal(err)
		}
		model.Service.TLS.Certificates = []tls.Certificate{pair}
	}
	server := model.Service.NewServer()
	defer server.Close()

	if err := announce(*env, server.URL); err != nil {
		log.Fatal(err)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	if *stdinExit {
		go func() {
			_, _ = os.Stdin.Read(make([]byte, 1))
			stop <- syscall.SIGTERM
		}()
	}
	<-stop
}

// sizeHosts sets the templates every simulated host is made from, before the model is created.
func sizeHosts(memoryGiB int64, cores int) error {
	if memoryGiB < 1 || cores < 1 {
		return fmt.Errorf("host memory (%d GiB) and cores (%d) must be at least 1", memoryGiB, cores)
	}
	bytes := memoryGiB << 30
	summary := esx.HostSystem.Summary.Hardware
	summary.MemorySize = bytes
	summary.NumCpuCores = int16(cores)
	summary.NumCpuThreads = int16(2 * cores)
	info := esx.HostHardwareInfo
	info.MemorySize = bytes
	info.CpuInfo.NumCpuCores = int16(cores)
	info.CpuInfo.NumCpuThreads = int16(2 * cores)
	return nil
}

// hostsReachableAt gives the hosts' VMkernel NICs the address the simulator listens on, as the
// simulator's own command does: their addresses are where a client would reach them.
func hostsReachableAt(listen string) error {
	addr, _, err := net.SplitHostPort(listen)
	if err != nil {
		return err
	}
	esx.HostSystem.Summary.ManagementServerIp = addr
	nics := [][]types.HostVirtualNic{esx.HostConfigInfo.Network.Vnic, esx.HostConfigInfo.Vmotion.NetConfig.CandidateVnic}
	for _, config := range esx.HostConfigInfo.VirtualNicManagerInfo.NetConfig {
		nics = append(nics, config.CandidateVnic)
	}
	for _, list := range nics {
		for i := range list {
			list[i].Spec.Ip.IpAddress = addr
		}
	}
	return nil
}

func parseMemory(list string) ([]int64, error) {
	var sizes []int64
	for _, item := range strings.Split(list, ",") {
		gib, err := strconv.ParseInt(strings.TrimSpace(item), 10, 64)
		if err != nil || gib < 1 {
			return nil, fmt.Errorf("-host-memory-gib: %q is not a whole number of GiB", item)
		}
		sizes = append(sizes, gib)
	}
	return sizes, nil
}

// resizeClusterHosts gives the i-th host of each cluster (named ..._H<i> by the simulator) the i-th memory
// size, and its cluster the difference in its totals.
func resizeClusterHosts(memory []int64) {
	for _, entity := range simulator.Map.All("HostSystem") {
		host := entity.(*simulator.HostSystem)
		at := strings.LastIndex(host.Name, "_H")
		i, err := strconv.Atoi(host.Name[at+2:])
		if at < 0 || err != nil || host.Parent == nil || host.Parent.Type != "ClusterComputeResource" {
			continue
		}
		size := memory[len(memory)-1] << 30
		if i < len(memory) {
			size = memory[i] << 30
		}
		delta := size - host.Summary.Hardware.MemorySize
		host.Summary.Hardware.MemorySize = size
		host.Hardware.MemorySize = size
		cluster := simulator.Map.Get(*host.Parent).(*simulator.ClusterComputeResource)
		summary := cluster.Summary.GetComputeResourceSummary()
		summary.TotalMemory += delta
		summary.EffectiveMemory += delta
	}
}

func parseDelays(spec string) (map[string]int, error) {
	delays := map[string]int{}
	for _, item := range strings.Split(spec, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(item), ":")
		ms, err := strconv.Atoi(value)
		if !ok || name == "" || err != nil || ms < 0 {
			return nil, fmt.Errorf("-method-delay: %q is not method:milliseconds", item)
		}
		delays[name] = ms
	}
	return delays, nil
}

// announce writes the service URL where the lab waits for it.
func announce(env string, u *url.URL) error {
	line := fmt.Sprintf("export GOVC_URL=%s GOVC_SIM_PID=%d\n", u, os.Getpid())
	if env == "-" {
		_, err := fmt.Print(line)
		return err
	}
	out, err := os.OpenFile(env, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := out.WriteString(line); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func secret(value string) string {
	resolved, err := session.Secret(value)
	if err != nil {
		log.Fatal(err)
	}
	return resolved
}
