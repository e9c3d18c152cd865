/*
 * nfswriter: an NFSv3 client (libnfs) that logs every write the server acknowledged, for power-cut tests.
 *
 * The mount and the file handle come from libnfs's high-level calls; every WRITE and COMMIT goes out
 * through libnfs's RPC layer (rpc_nfs3_write_async / rpc_nfs3_commit_async), so the program chooses
 * stable_how itself:
 *   --mode sync      each WRITE is FILE_SYNC; acknowledged when its reply is NFS3_OK with committed=FILE_SYNC
 *                    (a reply that claims less is re-sent as a FILE_SYNC write, never counted).
 *   --mode unstable  --batch WRITEs are UNSTABLE, then one COMMIT; all of them are acknowledged only when
 *                    the COMMIT succeeds and its verifier equals the verifier of every WRITE reply of the
 *                    batch. A changed verifier means the server restarted and may have lost them: the
 *                    batch is sent again (same sequence numbers, same data), as a real client does.
 *
 * Each write fills one block (--block-size, at a block-aligned offset) with data that starts with a
 * header naming its sequence number and offset, then bytes from a PRNG seeded by (seed, seq): no two
 * writes carry the same data, so an older block can never pass for a newer one.
 *
 * Log (text, one record a line, appended to --log):
 *   I seq offset length sha256 mode               before the WRITE is sent (fflush)
 *   A seq offset length sha256 mode verf ns        after the write is acknowledged (fflush + fsync, one
 *                                                  record at a time, before the next write is counted)
 *   R seq reason                                  the write is sent again (verifier changed, ...)
 *   E message                                     an error; the program exits 1
 * ns is CLOCK_REALTIME in nanoseconds (the harness measures stalls from it).
 *
 * Runs until --count writes were acknowledged (0: forever) or it is killed; exits 0 on a clean end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>
#include <openssl/evp.h>

/* libnfs 4.0 keeps struct nfs_fh private; its layout is {int len; char *val;}, the same as nfs_fh3. */
struct fh_view {
	int len;
	char *val;
};

struct options {
	const char *url;
	const char *file;
	const char *log;
	int unstable;
	uint32_t block_size;
	uint64_t blocks;
	uint64_t seed;
	uint64_t start_seq;
	uint64_t count;
	uint32_t batch;
	int timeout_ms;
	uint64_t rate; /* writes per second, 0: as fast as the server answers */
};

struct reply {
	int done;
	int rpc_status;
	int nfs_status;
	int committed;
	char verf[NFS3_WRITEVERFSIZE];
	uint32_t count;
	char error[256];
};

static FILE *logf_;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Pace to --rate on a fixed schedule from the start (a slow answer is not made up by a burst). */
static void pace(uint64_t rate, uint64_t started_ns, uint64_t done)
{
	if (!rate)
		return;
	uint64_t due = started_ns + done * 1000000000ull / rate;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (due <= now)
		return;
	ts.tv_sec = (time_t)(due / 1000000000ull);
	ts.tv_nsec = (long)(due % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void log_sync(void)
{
	if (fflush(logf_) != 0 || fsync(fileno(logf_)) != 0) {
		perror("nfswriter: log");
		exit(2);
	}
}

static void fail(const char *fmt, ...)
{
	va_list ap;
	char msg[512];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if (*p == '\n')
			*p = ' ';
	if (logf_) {
		fprintf(logf_, "E %s\n", msg);
		log_sync();
	}
	fprintf(stderr, "nfswriter: %s\n", msg);
	exit(1);
}

static uint64_t splitmix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fill_block(unsigned char *buf, uint32_t size, uint64_t seed, uint64_t seq, uint64_t offset)
{
	uint64_t state = seed ^ (seq * 0xd1342543de82ef95ull);
	for (uint32_t i = 0; i + 8 <= size; i += 8) {
		uint64_t v = splitmix(&state);
		memcpy(buf + i, &v, 8);
	}
	char header[96];
	int n = snprintf(header, sizeof(header), "arcvsa-nfswriter seq=%020" PRIu64 " offset=%020" PRIu64 "\n",
			 seq, offset);
	memcpy(buf, header, (size_t)n < size ? (size_t)n : size);
}

static void sha256_hex(const unsigned char *buf, size_t len, char out[65])
{
	unsigned char md[32];
	unsigned int mdlen = 0;
	if (EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32)
		fail("sha256 failed");
	for (int i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
	out[64] = 0;
}

static void verf_hex(const char verf[NFS3_WRITEVERFSIZE], char out[2 * NFS3_WRITEVERFSIZE + 1])
{
	for (int i = 0; i < NFS3_WRITEVERFSIZE; i++)
		sprintf(out + 2 * i, "%02x", (unsigned char)verf[i]);
}

/* Marks the reply done; 0 (with the RPC error kept) unless the call itself succeeded. */
static int reply_arrived(struct reply *r, struct rpc_context *rpc, int status, void *data)
{
	r->done = 1;
	r->rpc_status = status;
	if (status == RPC_STATUS_SUCCESS)
		return 1;
	snprintf(r->error, sizeof(r->error), "%s", data ? (const char *)data : rpc_get_error(rpc));
	return 0;
}

static void write_cb(struct rpc_context *rpc, int status, void *data, void *private_data)
{
	struct reply *r = private_data;
	if (!reply_arrived(r, rpc, status, data))
		return;
	WRITE3res *res = data;
	r->nfs_status = res->status;
	if (res->status == NFS3_OK) {
		r->committed = res->WRITE3res_u.resok.committed;
		r->count = res->WRITE3res_u.resok.count;
		memcpy(r->verf, res->WRITE3res_u.resok.verf, NFS3_WRITEVERFSIZE);
	}
}

static void commit_cb(struct rpc_context *rpc, int status, void *data, void *private_data)
{
	struct reply *r = private_data;
	if (!reply_arrived(r, rpc, status, data))
		return;
	COMMIT3res *res = data;
	r->nfs_status = res->status;
	if (res->status == NFS3_OK)
		memcpy(r->verf, res->COMMIT3res_u.resok.verf, NFS3_WRITEVERFSIZE);
}

/* Drive the RPC context until the reply arrives; fail after timeout_ms without one. */
static void wait_reply(struct rpc_context *rpc, struct reply *r, int timeout_ms, const char *what)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	while (!r->done) {
		struct pollfd pfd = { .fd = rpc_get_fd(rpc), .events = (short)rpc_which_events(rpc) };
		int ret = poll(&pfd, 1, 100);
		if (ret < 0 && errno != EINTR)
			fail("%s: poll: %s", what, strerror(errno));
		/* revents 0 every 100 ms lets libnfs run its timers (reconnects). */
		if (rpc_service(rpc, ret > 0 ? pfd.revents : 0) < 0)
			fail("%s: rpc_service: %s", what, rpc_get_error(rpc));
		if (!r->done && now_ns() > deadline)
			fail("%s: no reply within %d ms", what, timeout_ms);
	}
}

static void send_write(struct rpc_context *rpc, struct nfs_fh3 *fh, uint64_t offset, unsigned char *buf,
		       uint32_t len, int stable, struct reply *r, int timeout_ms)
{
	WRITE3args args;
	memset(&args, 0, sizeof(args));
	memset(r, 0, sizeof(*r));
	args.file = *fh;
	args.offset = offset;
	args.count = len;
	args.stable = stable;
	args.data.data_len = len;
	args.data.data_val = (char *)buf;
	if (rpc_nfs3_write_async(rpc, write_cb, &args, r) != 0)
		fail("WRITE: cannot queue: %s", rpc_get_error(rpc));
	wait_reply(rpc, r, timeout_ms, "WRITE");
}

static void send_commit(struct rpc_context *rpc, struct nfs_fh3 *fh, struct reply *r, int timeout_ms)
{
	COMMIT3args args;
	memset(&args, 0, sizeof(args));
	memset(r, 0, sizeof(*r));
	args.file = *fh;
	args.offset = 0;
	args.count = 0; /* the whole file */
	if (rpc_nfs3_commit_async(rpc, commit_cb, &args, r) != 0)
		fail("COMMIT: cannot queue: %s", rpc_get_error(rpc));
	wait_reply(rpc, r, timeout_ms, "COMMIT");
}

/* NFS3ERR_JUKEBOX: the server is busy (e.g. in grace after a restart); a client waits and tries again. */
static int jukebox(uint64_t seq)
{
	fprintf(logf_, "R %" PRIu64 " jukebox\n", seq);
	fflush(logf_);
	sleep(1);
	return 1;
}

struct pending {
	uint64_t seq;
	uint64_t offset;
	char sha[65];
	unsigned char *buf;
};

static uint64_t slot_of(uint64_t seed, uint64_t seq, uint64_t blocks)
{
	uint64_t state = seed ^ 0x5bd1e995ull ^ (seq * 0x9e3779b97f4a7c15ull);
	return splitmix(&state) % blocks;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nfswriter --url nfs://HOST/EXPORT?nfsport=N&mountport=M --file NAME --log PATH\n"
		"                 [--mode sync|unstable] [--block-size B] [--blocks N] [--seed S]\n"
		"                 [--start-seq N] [--count N] [--batch K] [--timeout-ms T] [--rate W]\n");
	exit(2);
}

static uint64_t number(const char *text)
{
	char *end = NULL;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 0);
	if (errno || !end || *end)
		usage();
	return (uint64_t)v;
}

static void parse(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "url", required_argument, 0, 'u' },	   { "file", required_argument, 0, 'f' },
		{ "log", required_argument, 0, 'l' },	   { "mode", required_argument, 0, 'm' },
		{ "block-size", required_argument, 0, 'b' }, { "blocks", required_argument, 0, 'n' },
		{ "seed", required_argument, 0, 's' },	   { "start-seq", required_argument, 0, 'q' },
		{ "count", required_argument, 0, 'c' },	   { "batch", required_argument, 0, 'k' },
		{ "timeout-ms", required_argument, 0, 't' }, { "rate", required_argument, 0, 'r' },
		{ 0, 0, 0, 0 },
	};
	memset(o, 0, sizeof(*o));
	o->block_size = 16384;
	o->blocks = 256;
	o->start_seq = 1;
	o->batch = 8;
	o->timeout_ms = 120000;
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'u': o->url = optarg; break;
		case 'f': o->file = optarg; break;
		case 'l': o->log = optarg; break;
		case 'm':
			if (strcmp(optarg, "sync") == 0)
				o->unstable = 0;
			else if (strcmp(optarg, "unstable") == 0)
				o->unstable = 1;
			else
				usage();
			break;
		case 'b': o->block_size = (uint32_t)number(optarg); break;
		case 'n': o->blocks = number(optarg); break;
		case 's': o->seed = number(optarg); break;
		case 'q': o->start_seq = number(optarg); break;
		case 'c': o->count = number(optarg); break;
		case 'k': o->batch = (uint32_t)number(optarg); break;
		case 't': o->timeout_ms = (int)number(optarg); break;
		case 'r': o->rate = number(optarg); break;
		default: usage();
		}
	}
	if (!o->url || !o->file || !o->log || o->block_size < 128 || o->block_size > (1u << 20) ||
	    o->block_size % 8 || !o->blocks || !o->batch || o->batch > 1024 || o->timeout_ms <= 0)
		usage();
}

int main(int argc, char **argv)
{
	struct options o;
	parse(argc, argv, &o);
	logf_ = fopen(o.log, "a");
	if (!logf_) {
		perror(o.log);
		return 2;
	}
	const char *mode = o.unstable ? "unstable" : "sync";

	struct nfs_context *nfs = nfs_init_context();
	if (!nfs)
		fail("nfs_init_context failed");
	nfs_set_timeout(nfs, o.timeout_ms);
	nfs_set_autoreconnect(nfs, -1); /* reconnect (and re-send what is pending) after a server restart */
	struct nfs_url *url = nfs_parse_url_dir(nfs, o.url);
	if (!url)
		fail("bad url %s: %s", o.url, nfs_get_error(nfs));
	if (nfs_mount(nfs, url->server, url->path) != 0)
		fail("mount %s: %s", o.url, nfs_get_error(nfs));
	char path[1024];
	snprintf(path, sizeof(path), "/%s", o.file);
	struct nfsfh *fh = NULL;
	if (nfs_open(nfs, path, O_RDWR, &fh) != 0 && nfs_creat(nfs, path, 0644, &fh) != 0)
		fail("open %s: %s", path, nfs_get_error(nfs));
	struct fh_view *view = (struct fh_view *)nfs_get_fh(fh);
	struct nfs_fh3 fh3 = { .data = { .data_len = (u_int)view->len, .data_val = view->val } };
	struct rpc_context *rpc = nfs_get_rpc_context(nfs);

	uint32_t batch = o.unstable ? o.batch : 1;
	struct pending *pend = calloc(batch, sizeof(*pend));
	if (!pend)
		fail("out of memory");
	for (uint32_t i = 0; i < batch; i++) {
		pend[i].buf = malloc(o.block_size);
		if (!pend[i].buf)
			fail("out of memory");
	}
	fprintf(stderr, "nfswriter: %s mode=%s block=%u blocks=%" PRIu64 " seed=%" PRIu64 " from seq %" PRIu64 "\n",
		o.url, mode, o.block_size, o.blocks, o.seed, o.start_seq);

	uint64_t seq = o.start_seq, acked = 0;
	struct reply r;
	char vhex[2 * NFS3_WRITEVERFSIZE + 1];
	struct timespec start_ts;
	clock_gettime(CLOCK_MONOTONIC, &start_ts);
	uint64_t started_ns = (uint64_t)start_ts.tv_sec * 1000000000ull + (uint64_t)start_ts.tv_nsec;
	while (o.count == 0 || acked < o.count) {
		pace(o.rate, started_ns, acked);
		for (uint32_t i = 0; i < batch; i++, seq++) {
			struct pending *p = &pend[i];
			p->seq = seq;
			p->offset = slot_of(o.seed, seq, o.blocks) * o.block_size;
			fill_block(p->buf, o.block_size, o.seed, seq, p->offset);
			sha256_hex(p->buf, o.block_size, p->sha);
			fprintf(logf_, "I %" PRIu64 " %" PRIu64 " %u %s %s\n", p->seq, p->offset, o.block_size, p->sha, mode);
			if (fflush(logf_) != 0)
				fail("log: %s", strerror(errno));
		}
		if (!o.unstable) {
			struct pending *p = &pend[0];
			for (;;) {
				send_write(rpc, &fh3, p->offset, p->buf, o.block_size, FILE_SYNC, &r, o.timeout_ms);
				if (r.rpc_status != RPC_STATUS_SUCCESS)
					fail("WRITE seq %" PRIu64 ": %s", p->seq, r.error);
				if (r.nfs_status == NFS3ERR_JUKEBOX) {
					jukebox(p->seq);
					continue;
				}
				if (r.nfs_status != NFS3_OK)
					fail("WRITE seq %" PRIu64 ": NFS status %d", p->seq, r.nfs_status);
				if (r.count == o.block_size && r.committed == FILE_SYNC)
					break;
				fprintf(logf_, "R %" PRIu64 " short-or-not-stable count=%u committed=%d\n", p->seq, r.count,
					r.committed);
			}
			verf_hex(r.verf, vhex);
			fprintf(logf_, "A %" PRIu64 " %" PRIu64 " %u %s %s %s %" PRIu64 "\n", p->seq, p->offset,
				o.block_size, p->sha, mode, vhex, now_ns());
			log_sync();
			acked++;
			continue;
		}
		for (;;) {
			char verf[NFS3_WRITEVERFSIZE];
			int same = 1;
			for (uint32_t i = 0; i < batch; i++) {
				struct pending *p = &pend[i];
				do {
					send_write(rpc, &fh3, p->offset, p->buf, o.block_size, UNSTABLE, &r, o.timeout_ms);
					if (r.rpc_status != RPC_STATUS_SUCCESS)
						fail("WRITE seq %" PRIu64 ": %s", p->seq, r.error);
				} while (r.nfs_status == NFS3ERR_JUKEBOX && jukebox(p->seq));
				if (r.nfs_status != NFS3_OK)
					fail("WRITE seq %" PRIu64 ": NFS status %d", p->seq, r.nfs_status);
				if (r.count != o.block_size)
					fail("WRITE seq %" PRIu64 ": short write %u", p->seq, r.count);
				if (i == 0)
					memcpy(verf, r.verf, sizeof(verf));
				else if (memcmp(verf, r.verf, sizeof(verf)) != 0)
					same = 0;
			}
			do {
				send_commit(rpc, &fh3, &r, o.timeout_ms);
				if (r.rpc_status != RPC_STATUS_SUCCESS)
					fail("COMMIT after seq %" PRIu64 ": %s", pend[batch - 1].seq, r.error);
			} while (r.nfs_status == NFS3ERR_JUKEBOX && jukebox(pend[batch - 1].seq));
			if (r.nfs_status != NFS3_OK)
				fail("COMMIT after seq %" PRIu64 ": NFS status %d", pend[batch - 1].seq, r.nfs_status);
			if (same && memcmp(verf, r.verf, sizeof(verf)) == 0)
				break;
			for (uint32_t i = 0; i < batch; i++)
				fprintf(logf_, "R %" PRIu64 " verifier-changed\n", pend[i].seq);
			if (fflush(logf_) != 0)
				fail("log: %s", strerror(errno));
		}
		verf_hex(r.verf, vhex);
		for (uint32_t i = 0; i < batch; i++) {
			struct pending *p = &pend[i];
			fprintf(logf_, "A %" PRIu64 " %" PRIu64 " %u %s %s %s %" PRIu64 "\n", p->seq, p->offset,
				o.block_size, p->sha, mode, vhex, now_ns());
			log_sync();
			acked++;
		}
	}
	nfs_close(nfs, fh);
	nfs_umount(nfs);
	nfs_destroy_url(url);
	nfs_destroy_context(nfs);
	fclose(logf_);
	return 0;
}
