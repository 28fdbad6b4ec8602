/* An ALSA PCM for the simulator's audio tests: writes what is played to a file, at the stream's
 * rate (ALSA's `file` PCM over `null` takes everything at once, so the simulator's output would
 * outrun a real stream). Raw interleaved S16_LE. Build and use (hosts/moddable/README.md):
 *   gcc -O2 -DPIC -shared -fPIC -o libasound_module_pcm_paced.so paced-pcm.c -lasound
 *   pcm_type.paced { lib "/path/libasound_module_pcm_paced.so" }
 *   pcm.!default { type paced; file "/path/capture.raw" }
 * Starved, it holds the last frame written back until more come (or it drains). */
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <sys/timerfd.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
	snd_pcm_ioplug_t io;
	int timerfd;
	FILE *file;
	double start;
	snd_pcm_uframes_t base, hw;
	int running;
	unsigned long underruns;
} paced_t;

static double now_s(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static int paced_start(snd_pcm_ioplug_t *io) {
	paced_t *p = io->private_data;
	p->start = now_s(); p->base = p->hw; p->running = 1;
	return 0;
}
/* prepare (also after an underrun, snd_pcm_recover) starts the pointers again from 0 */
static int paced_prepare(snd_pcm_ioplug_t *io) {
	paced_t *p = io->private_data;
	p->hw = 0; p->base = 0; p->running = 0;
	return 0;
}
static int paced_stop(snd_pcm_ioplug_t *io) {
	paced_t *p = io->private_data;
	p->running = 0;
	return 0;
}
static snd_pcm_sframes_t paced_pointer(snd_pcm_ioplug_t *io) {
	paced_t *p = io->private_data;
	if (p->running) {
		snd_pcm_uframes_t target = p->base + (snd_pcm_uframes_t)((now_s() - p->start) * io->rate);
		snd_pcm_uframes_t appl = io->appl_ptr;
		/* Starved: hold one frame short of what was written and restart the clock there. Never
		 * all of it: the pointer is reported modulo the buffer, so a move of a whole buffer
		 * between two calls (empty after full) would read as no move, and the writer would wait
		 * for room forever. */
		/* (A drain must reach the end: there it is let empty, the pointer read every 2 ms.) */
		snd_pcm_uframes_t keep = io->state == SND_PCM_STATE_DRAINING ? 0 : 1;
		if (target + keep > appl) {
			if (target > appl) p->underruns++;
			p->hw = appl >= keep ? appl - keep : 0; p->base = p->hw; p->start = now_s();
		} else p->hw = target;
	}
	return p->hw % io->buffer_size;
}
static snd_pcm_sframes_t paced_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas, snd_pcm_uframes_t offset, snd_pcm_uframes_t size) {
	paced_t *p = io->private_data;
	const char *buf = (const char *)areas->addr + (areas->first + areas->step * offset) / 8;
	fwrite(buf, 2 * io->channels, size, p->file);
	fflush(p->file);
	return size;
}
static int paced_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfd, unsigned int nfds, unsigned short *revents) {
	paced_t *p = io->private_data;
	uint64_t ticks;
	if (read(p->timerfd, &ticks, sizeof ticks) < 0) { /* no tick yet */ }
	/* writable when a period fits between what was written and what was played */
	paced_pointer(io);
	snd_pcm_sframes_t avail = (snd_pcm_sframes_t)io->buffer_size - (snd_pcm_sframes_t)(io->appl_ptr - p->hw);
	*revents = (!p->running || avail >= (snd_pcm_sframes_t)io->period_size) ? POLLOUT : 0;
	return 0;
}
static int paced_close(snd_pcm_ioplug_t *io) {
	paced_t *p = io->private_data;
	if (p->underruns) fprintf(stderr, "paced: %lu underruns\n", p->underruns);
	fclose(p->file); close(p->timerfd); free(p);
	return 0;
}
static const snd_pcm_ioplug_callback_t callbacks = {
	.start = paced_start, .stop = paced_stop, .prepare = paced_prepare, .pointer = paced_pointer, .transfer = paced_transfer,
	.close = paced_close, .poll_revents = paced_poll_revents,
};

SND_PCM_PLUGIN_DEFINE_FUNC(paced) {
	snd_config_iterator_t i, next;
	const char *path = NULL;
	snd_config_for_each(i, next, conf) {
		snd_config_t *n = snd_config_iterator_entry(i);
		const char *id;
		if (snd_config_get_id(n, &id) < 0) continue;
		if (!strcmp(id, "comment") || !strcmp(id, "type") || !strcmp(id, "hint")) continue;
		if (!strcmp(id, "file")) { snd_config_get_string(n, &path); continue; }
		SNDERR("Unknown field %s", id); return -EINVAL;
	}
	if (!path || stream != SND_PCM_STREAM_PLAYBACK) return -EINVAL;
	paced_t *p = calloc(1, sizeof *p);
	p->file = fopen(path, "wb");
	p->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	/* always armed: a writer waiting in poll wakes every 2 ms, started or not */
	struct itimerspec its = { { 0, 2000000 }, { 0, 2000000 } };
	timerfd_settime(p->timerfd, 0, &its, NULL);
	p->io.version = SND_PCM_IOPLUG_VERSION;
	p->io.name = "paced file";
	p->io.callback = &callbacks;
	p->io.private_data = p;
	p->io.poll_fd = p->timerfd;
	p->io.poll_events = POLLIN;
	int err = snd_pcm_ioplug_create(&p->io, name, stream, mode);
	if (err < 0) return err;
	static const unsigned int access[] = { SND_PCM_ACCESS_RW_INTERLEAVED };
	static const unsigned int formats[] = { SND_PCM_FORMAT_S16_LE };
	snd_pcm_ioplug_set_param_list(&p->io, SND_PCM_IOPLUG_HW_ACCESS, 1, access);
	snd_pcm_ioplug_set_param_list(&p->io, SND_PCM_IOPLUG_HW_FORMAT, 1, formats);
	snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_CHANNELS, 1, 2);
	snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_RATE, 8000, 48000);
	snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 64, 1 << 20);
	snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_PERIODS, 2, 64);
	*pcmp = p->io.pcm;
	return 0;
}
SND_PCM_PLUGIN_SYMBOL(paced);
