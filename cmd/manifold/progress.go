package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/manifoldlab/manifold/engine"
)

// progress draws a one-line progress bar on a terminal: the method and
// stage, a bar and ETA when the stage knows its total, the time spent in the
// stage otherwise. A ticker redraws it so the clock moves during stages that
// report nothing until they end. Disabled, every method is a no-op.
type progress struct {
	w       io.Writer
	enabled bool
	now     func() time.Time

	mu         sync.Mutex
	last       engine.Progress
	stageStart time.Time
	drawn      time.Time
	visible    bool
	stop       chan struct{}
	done       chan struct{}
}

const progressInterval = 200 * time.Millisecond

// progressClock is the bar's clock (a test replaces it with one that
// advances on every reading, so that a stage of a few milliseconds still
// draws its fraction).
var progressClock = time.Now

func newProgress(w io.Writer, enabled bool) *progress {
	p := &progress{w: w, enabled: enabled, now: progressClock}
	if enabled {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.tick()
	}
	return p
}

func (p *progress) tick() {
	defer close(p.done)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.last.Stage != "" {
				p.drawLocked()
			}
			p.mu.Unlock()
		}
	}
}

// update is the engine's progress callback.
func (p *progress) update(pr engine.Progress) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	newStage := pr.Stage != p.last.Stage || pr.Method != p.last.Method
	if newStage {
		p.stageStart = now
	}
	p.last = pr
	if newStage || now.Sub(p.drawn) >= progressInterval/2 {
		p.drawLocked()
	}
}

func (p *progress) drawLocked() {
	now := p.now()
	p.drawn = now
	p.visible = true
	fmt.Fprintf(p.w, "\r%s\x1b[K", renderProgress(p.last, now.Sub(p.stageStart)))
}

// finish stops the ticker and clears the line.
func (p *progress) finish() {
	if !p.enabled {
		return
	}
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.visible {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.visible = false
	}
	p.enabled = false
}

// renderProgress renders one state of the bar.
func renderProgress(pr engine.Progress, elapsed time.Duration) string {
	head := fmt.Sprintf("%s %-12s", pr.Method, pr.Stage)
	if pr.Total <= 0 { // a stage that cannot know its end: the count so far (LOBPCG's iterations), if any
		if pr.Done > 0 {
			return fmt.Sprintf("%s %d so far %s", head, pr.Done, fmtDuration(elapsed))
		}
		return fmt.Sprintf("%s %s", head, fmtDuration(elapsed))
	}
	frac := min(1, max(0, float64(pr.Done)/float64(pr.Total)))
	const width = 30
	filled := int(frac*width + 0.5)
	bar := strings.Repeat("=", filled) + strings.Repeat(" ", width-filled)
	if filled > 0 && filled < width {
		bar = bar[:filled-1] + ">" + bar[filled:]
	}
	eta := "ETA --"
	if frac > 0 && elapsed > 0 {
		eta = "ETA " + fmtDuration(time.Duration(float64(elapsed)*(1-frac)/frac))
	}
	return fmt.Sprintf("%s [%s] %3.0f%% %s %s", head, bar, 100*frac, fmtDuration(elapsed), eta)
}

// fmtDuration renders a duration to the tenth of a second, minutes and
// hours when long.
func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
