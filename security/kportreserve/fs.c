// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve securityfs files: "policy" (read and replace the policy),
 * "mode" (enforce or permissive), "lock" (fix both until reboot), "stats"
 * (counters) and "denials" (per-port denial figures).
 *
 * A new policy may arrive in many write() calls, through one open file
 * that several processes may share. It is parsed as it comes, so a bad
 * line fails the write() that carries it, and every later write and close
 * of that open file fails the same way. The last close of the open file
 * builds it and puts it in force, inside that close(), which returns why
 * not if it was refused: a bad last line, the lock, a conditional load
 * that another load overtook (O_RDWR), or a writer that died of a signal
 * or exited with an error before the end. Until then the old policy stays
 * in force.
 */

#define pr_fmt(fmt) "kportreserve: " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "audit.h"
#include "control.h"
#include "denials.h"
#include "kportreserve.h"
#include "policy.h"
#include "stats.h"

/**
 * struct kpr_policy_file - one open of the "policy" file
 * @lock: serialises writes, reads, flushes and truncation on this open file
 * @parser: parses what is written
 * @writers: the thread group ids of the processes that wrote or truncated
 * @who: the last of them, for the audit record of the load
 * @base: for an O_RDWR open, the generation in force when it was opened:
 *        the load is conditional on it (see policy_flush())
 * @error: sticky error of this open file: once set, nothing is loaded and
 *         every close returns it
 * @dirty: written to or truncated, so the last close replaces the policy
 * @cancelled: a writer died, so nothing is loaded
 * @done: the last close has built and committed, or failed to
 * @conditional: opened O_RDWR, so @base applies
 * @text: for readers, the policy in force when the file was opened
 * @text_len: length of @text
 * @read_pos: read position of a writer, which is a stream
 */
struct kpr_policy_file {
	struct mutex lock; /* see the kernel-doc above */
	struct kpr_parser parser;
	struct xarray writers;
	struct kpr_subject who;
	u64 base;
	int error;
	bool dirty;
	bool cancelled;
	bool done;
	bool conditional;
	char *text;
	size_t text_len;
	loff_t read_pos;
};

static bool may_admin(const struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_MAC_ADMIN);
}

/* A change asked for while locked fails, and the log says why. */
static int check_unlocked(const char *what)
{
	if (!kpr_is_locked())
		return 0;
	pr_warn("%s is locked until reboot (kportreserve.lock); %s unchanged\n",
		what, what);
	return -EPERM;
}

static void free_policy_file(struct kpr_policy_file *pf)
{
	xa_destroy(&pf->writers);
	kpr_parser_destroy(&pf->parser);
	kvfree(pf->text);
	kfree(pf);
}

/*
 * Writers are streams: a policy is the bytes in the order they were
 * written, so offsets (lseek(), pwrite()) mean nothing, and appending to
 * the policy in force is not what O_APPEND would seem to promise.
 */
static int policy_open(struct inode *inode, struct file *file)
{
	struct kpr_policy_file *pf;

	if (file->f_mode & FMODE_WRITE) {
		if (!may_admin(file))
			return -EPERM;
		if (check_unlocked("policy"))
			return -EPERM;
		if (file->f_flags & O_APPEND)
			return -EINVAL;
	}
	pf = kzalloc_obj(*pf);
	if (!pf)
		return -ENOMEM;
	mutex_init(&pf->lock);
	kpr_parser_init(&pf->parser);
	xa_init(&pf->writers);
	if (file->f_mode & FMODE_READ) {
		pf->text = kpr_policy_text(&pf->text_len, &pf->base);
		if (!pf->text) {
			free_policy_file(pf);
			return -ENOMEM;
		}
	}
	if (file->f_mode & FMODE_WRITE) {
		pf->conditional = file->f_mode & FMODE_READ;
		stream_open(inode, file);
	}
	file->private_data = pf;
	return 0;
}

static ssize_t policy_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct kpr_policy_file *pf = file->private_data;
	ssize_t ret;

	mutex_lock(&pf->lock);
	ret = simple_read_from_buffer(buf, count, ppos ?: &pf->read_pos,
				      pf->text, pf->text_len);
	mutex_unlock(&pf->lock);
	return ret;
}

/*
 * Called with pf->lock held, by every change of the written text: it
 * makes the caller a writer, whose death cancels the load.
 */
static int policy_changed(struct kpr_policy_file *pf)
{
	int err;

	err = xa_err(xa_store(&pf->writers, task_tgid_nr(current),
			      xa_mk_value(1), GFP_KERNEL_ACCOUNT));
	if (err)
		return err;
	kpr_subject_current(&pf->who);
	pf->dirty = true;
	return 0;
}

static bool is_writer(struct kpr_policy_file *pf)
{
	return xa_load(&pf->writers, task_tgid_nr(current));
}

/* Called with pf->lock held: the first error of an open file sticks. */
static int fail(struct kpr_policy_file *pf, int err)
{
	if (!pf->error)
		pf->error = err;
	return pf->error;
}

static int parse_error(struct kpr_policy_file *pf, int err)
{
	if (!pf->error)
		pr_err("policy line %u: %s; policy unchanged\n",
		       pf->parser.error_line, pf->parser.error_msg);
	return fail(pf, err);
}

static int copy_policy(const char __user *ubuf, size_t count, char **buf)
{
	if (count > KPR_POLICY_MAX_BYTES) {
		pr_err("policy larger than 16 MiB of text; policy unchanged\n");
		return -E2BIG;
	}
	*buf = vmemdup_user(ubuf, count);
	return PTR_ERR_OR_ZERO(*buf);
}

static ssize_t policy_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct kpr_policy_file *pf = file->private_data;
	char *buf = NULL;
	int err;

	if (!may_admin(file))
		return -EPERM;
	if (!count)
		return 0;
	/* O_APPEND may have been set with fcntl() after open. */
	err = file->f_flags & O_APPEND ? -EINVAL : copy_policy(ubuf, count, &buf);

	mutex_lock(&pf->lock);
	/* A lost write would splice the lines around it: fail them all. */
	if (!pf->error && !err)
		err = policy_changed(pf);
	if (err || pf->error)
		err = fail(pf, err);
	else if (kpr_parser_feed(&pf->parser, buf, count))
		err = parse_error(pf, pf->parser.error);
	mutex_unlock(&pf->lock);
	if (!IS_ERR_OR_NULL(buf))
		kvfree(buf);
	return err ?: count;
}

/**
 * load_policy() - build the written policy and put it in force
 * @pf: the open file, at its last close
 *
 * Context: pf->lock held.
 * Return: 0, the open file's error, or why the load was refused.
 */
static int load_policy(struct kpr_policy_file *pf)
{
	struct kpr_ruleset rs;
	int err;

	pf->done = true;
	if (pf->error)
		return pf->error;
	err = kpr_parser_finish(&pf->parser);
	if (err)
		return parse_error(pf, err);
	kpr_parser_take(&pf->parser, &rs);
	return fail(pf, kpr_load_policy(&rs, pf->conditional ? &pf->base : NULL,
					&pf->who));
}

/*
 * A writer that dies closes its files on the way out: with the signal
 * that killed it, or the status it exits with, in its exit code.
 */
static bool writer_died(void)
{
	return fatal_signal_pending(current) ||
	       ((current->flags & PF_EXITING) && current->exit_code);
}

static void cancel_load(struct kpr_policy_file *pf)
{
	pf->cancelled = true;
	pr_warn("policy load cancelled: writer %d (%s) %s; policy unchanged\n",
		task_tgid_nr(current), current->comm,
		fatal_signal_pending(current) || current->exit_code & 0x7f ?
		"killed by a signal" : "exited with an error");
	fail(pf, -ECANCELED);
}

/**
 * policy_flush() - a close() of the "policy" file
 * @file: the file
 * @id: unused
 *
 * The last close of an open file builds and commits the written policy,
 * inside that close(), so that close() returns why it was refused and the
 * audit record names its caller. A close by a writer that is not the last
 * (the descriptor is shared) reports a bad unterminated last line. A
 * writer that dies of a signal or exits with a non-zero status cancels
 * the load, as a producer that fails half way must not put half a policy
 * in force. Every close after an error returns it.
 *
 * Return: 0 or the error of this open file.
 */
static int policy_flush(struct file *file, fl_owner_t id)
{
	struct kpr_policy_file *pf = file->private_data;
	int err = 0;

	if (!(file->f_mode & FMODE_WRITE))
		return 0;
	mutex_lock(&pf->lock);
	if (!pf->cancelled && writer_died() && is_writer(pf))
		cancel_load(pf);
	if (pf->done || !pf->dirty)
		err = pf->error;
	else if (file_count(file) == 1)
		err = load_policy(pf);
	else if (is_writer(pf) && kpr_parser_check_pending(&pf->parser))
		err = parse_error(pf, pf->parser.error);
	else
		err = pf->error;
	mutex_unlock(&pf->lock);
	return err;
}

/*
 * The last reference may go without a close that saw it (a racing fget(),
 * a descriptor in flight in a unix socket): commit here then, in the name
 * of the last writer, with nobody to tell the outcome but the log.
 */
static int policy_release(struct inode *inode, struct file *file)
{
	struct kpr_policy_file *pf = file->private_data;

	if ((file->f_mode & FMODE_WRITE) && pf->dirty && !pf->done &&
	    !pf->error) {
		mutex_lock(&pf->lock);
		load_policy(pf);
		mutex_unlock(&pf->lock);
	}
	free_policy_file(pf);
	return 0;
}

static const struct file_operations policy_fops = {
	.open = policy_open,
	.read = policy_read,
	.write = policy_write,
	.flush = policy_flush,
	.release = policy_release,
	.llseek = default_llseek,
};

/*
 * open(O_TRUNC) loses the flag before our open sees it, but truncates
 * through setattr with the file at hand: ": > policy" means "load the
 * empty policy", where a plain open and close ("touch") changes nothing.
 * Truncation to any other size has no meaning for a policy and is refused.
 */
static int policy_setattr(struct mnt_idmap *idmap, struct dentry *dentry,
			  struct iattr *attr)
{
	struct file *file = attr->ia_file;
	struct kpr_policy_file *pf;
	int err;

	if ((attr->ia_valid & ATTR_SIZE) && attr->ia_size)
		return -EINVAL;
	err = simple_setattr(idmap, dentry, attr);
	if (err || (attr->ia_valid & (ATTR_SIZE | ATTR_FILE)) !=
	    (ATTR_SIZE | ATTR_FILE) ||
	    file->f_op != &policy_fops || !(file->f_mode & FMODE_WRITE))
		return err;

	/* Truncation to zero starts the written policy over, empty. */
	pf = file->private_data;
	mutex_lock(&pf->lock);
	if (!pf->error && !policy_changed(pf)) {
		kpr_parser_destroy(&pf->parser);
		kpr_parser_init(&pf->parser);
	}
	mutex_unlock(&pf->lock);
	return 0;
}

static const struct inode_operations policy_iops = {
	.setattr = policy_setattr,
};

/* kpr_stats_fops and kpr_denials_fops, read through seq_file. */
DEFINE_SHOW_ATTRIBUTE(kpr_stats);
DEFINE_SEQ_ATTRIBUTE(kpr_denials);

/**
 * read_admin_word() - copy a short write of the administrator's
 * @file: the file written to
 * @ubuf: the user buffer
 * @count: its length
 * @buf: receives the NUL-terminated word
 * @size: size of @buf
 *
 * Return: 0, -EPERM without CAP_MAC_ADMIN, -EINVAL when the text does not
 * fit, or -EFAULT.
 */
static int read_admin_word(struct file *file, const char __user *ubuf,
			   size_t count, char *buf, size_t size)
{
	if (!may_admin(file))
		return -EPERM;
	if (!count || count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (buf[count - 1] == '\n')
		buf[count - 1] = '\0';
	return 0;
}

static ssize_t mode_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	char text[16];
	int len;

	len = scnprintf(text, sizeof(text), "%s\n",
			kpr_mode_name(kpr_is_permissive()));
	return simple_read_from_buffer(buf, count, ppos, text, len);
}

static ssize_t mode_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char word[16];
	bool permissive;
	int err;

	err = read_admin_word(file, ubuf, count, word, sizeof(word)) ?:
	      kpr_parse_mode(word, &permissive) ?:
	      kpr_set_mode(permissive);
	return err ?: count;
}

static const struct file_operations mode_fops = {
	.read = mode_read,
	.write = mode_write,
	.llseek = default_llseek,
};

static ssize_t lock_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	const char *text = kpr_is_locked() ? "1\n" : "0\n";

	return simple_read_from_buffer(buf, count, ppos, text, 2);
}

/* Only "1" is accepted: the lock is one-way. */
static ssize_t lock_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char word[4];
	int err;

	err = read_admin_word(file, ubuf, count, word, sizeof(word));
	if (err)
		return err;
	if (strcmp(word, "1"))
		return kpr_is_locked() ? check_unlocked("lock") : -EINVAL;
	err = kpr_set_lock();
	return err ?: count;
}

static const struct file_operations lock_fops = {
	.read = lock_read,
	.write = lock_write,
	.llseek = default_llseek,
};

/**
 * kpr_init_securityfs() - create /sys/kernel/security/kportreserve/
 *
 * The LSM's fs initcall, which the LSM framework runs only when lsm=
 * enables kportreserve. A file that cannot be created takes the directory
 * and the files made so far with it.
 *
 * Return: 0 or the error of the file that could not be created.
 */
int __init kpr_init_securityfs(void)
{
	static const struct {
		const char *name;
		umode_t mode;
		const struct file_operations *fops;
	} files[] = {
		{ "policy", 0600, &policy_fops },
		{ "mode", 0644, &mode_fops },
		{ "lock", 0644, &lock_fops },
		{ "stats", 0444, &kpr_stats_fops },
		{ "denials", 0400, &kpr_denials_fops },
	};
	struct dentry *dir, *dentry;
	int i;

	dir = securityfs_create_dir("kportreserve", NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		dentry = securityfs_create_file(files[i].name, files[i].mode,
						dir, NULL, files[i].fops);
		if (IS_ERR(dentry)) {
			securityfs_remove(dir);
			return PTR_ERR(dentry);
		}
		if (files[i].fops == &policy_fops)
			d_inode(dentry)->i_op = &policy_iops;
	}
	return 0;
}
