package io.github.redislock.torture;

import java.time.Duration;
import java.util.List;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockContext;
import io.github.redislock.LockRequest;

import org.springframework.context.ApplicationContext;

/**
 * Takes a shared workload's lock in the way the section's kind says, through the public API only, and runs the
 * section under it: the annotation ({@link SectionKind#RENEWED}, {@link SectionKind#REENTRANT}) or the template with
 * {@link LockRequest#mode} or {@link LockRequest#permits} (fixed lease, two keys, long sections). The exclusive
 * workload's locks are taken by {@code Worker} itself, as before there were shared ones.
 */
final class SharedLocking {

    private final DistributedLockTemplate template;

    private final SharedSections.Annotated annotated;

    private final SharedSections.Nested nested;

    private final WorkerApplication.AnnotatedSections writes;

    private final Duration waitTime;

    private final Duration fixedLease;

    private final Duration longWait;

    /**
     * @param longWait how long a long section waits: as long as the other workers' long sections may take
     */
    SharedLocking(ApplicationContext context, Duration waitTime, Duration fixedLease, Duration longWait) {
        this.template = context.getBean(DistributedLockTemplate.class);
        this.annotated = context.getBean(SharedSections.Annotated.class);
        this.nested = context.getBean(SharedSections.Nested.class);
        this.writes = context.getBean(WorkerApplication.AnnotatedSections.class);
        this.waitTime = waitTime;
        this.fixedLease = fixedLease;
        this.longWait = longWait;
    }

    void run(SectionKind kind, List<String> resources, Share share, WorkerApplication.Section section) {
        String key = resources.get(0);
        switch (kind) {
            case RENEWED -> {
                if (share.isPermit()) {
                    this.annotated.permit(key, section);
                }
                else if (share.isReader()) {
                    this.annotated.read(key, section);
                }
                else {
                    this.writes.renewed(key, section);
                }
            }
            case REENTRANT -> {
                if (share.isPermit()) {
                    this.nested.permit(key, section);
                }
                else if (share.isReader()) {
                    this.nested.read(key, section);
                }
                else {
                    this.nested.write(key, section);
                }
            }
            case FIXED -> execute(share.applyTo(LockRequest.of(key, this.waitTime, this.fixedLease)), section);
            case MULTI_KEY -> execute(share.applyTo(LockRequest.of(resources, this.waitTime, null)), section);
            case LONG -> execute(share.applyTo(LockRequest.of(resources, this.longWait, null)), section);
        }
    }

    private void execute(LockRequest request, WorkerApplication.Section section) {
        this.template.execute(request, () -> {
            section.run(LockContext.current().orElseThrow());
            return null;
        });
    }
}
