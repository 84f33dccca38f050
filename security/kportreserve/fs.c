// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve securityfs files: "policy" (read the policy in force, or
 * replace it with text of any length), "load" (replace it with one
 * write()), "mode" (enforce or permissive), "lock" (fix both until
 * reboot), "stats" (counters) and "denials" (per-port denial figures).
 *
 * A policy comes in whole or not at all, through one of two doors, each
 * with a precedent in the tree:
 *
 *  - "load" takes a whole policy in one write(), as SELinux's "load",
 *    AppArmor's ".replace" and IPE's "new_policy" do, and puts it in force
 *    inside that write(), which returns why not. The text may begin with
 *    "generation N": then it replaces only the policy of that generation.
 *    kportreserve(8) uses this door.
 *  - "policy" takes text of any length in many write()s, for
 *    "cat FILE > policy", as IMA's policy file does: every write() is
 *    parsed as it comes and fails if it carries a bad line, and the policy
 *    is put in force when the last reference to the open file goes. Text
 *    that stops in the middle of a line is refused then.
 */

#define pr_fmt(fmt) "kportreserve: " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "audit.h"
#include "control.h"
#include "denials.h"
#include "kportreserve.h"
#include "policy.h"
#include "stats.h"

/**
 * struct kpr_policy_file - one open of the "policy" file
 * @lock: serialises writes and truncation on this open file; readers only
 *        read @text, which does not change once the file is open
 * @parser: parses what is written
 * @who: the last process that wrote or truncated, for the audit record
 *       of the load
 * @error: sticky error of this open file: once set, nothing is loaded
 * @dirty: written to or truncated, so the release replaces the policy
 * @mid_line: the last byte written is not a newline
 * @text: for readers, the policy in force when the file was opened
 * @text_len: length of @text
 */
struct kpr_policy_file {
	struct mutex lock; /* see the kernel-doc above */
	struct kpr_parser parser;
	struct kpr_subject who;
	int error;
	bool dirty;
	bool mid_line;
	char *text;
	size_t text_len;
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

/* May the opener of a policy door replace the policy? */
static int may_open_for_load(struct file *file)
{
	if (!may_admin(file))
		return -EPERM;
	return check_unlocked("policy");
}

static void log_parse_error(const struct kpr_parser *p)
{
	pr_err("policy line %u: %s; policy unchanged\n", p->error_line,
	       p->error_msg);
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

/* ---- "policy": text of any length, committed at the last reference ---- */

static void free_policy_file(struct kpr_policy_file *pf)
{
	kpr_parser_destroy(&pf->parser);
	kvfree(pf->text);
	kfree(pf);
}

/*
 * Readers get the policy in force at open(). Writers are streams: a
 * policy is the bytes in the order they were written, so offsets
 * (lseek(), pwrite()) mean nothing, and appending to the policy in force
 * is not what O_APPEND would seem to promise. One open file does not read
 * and write: O_RDWR is refused rather than given a meaning.
 */
static int policy_open(struct inode *inode, struct file *file)
{
	struct kpr_policy_file *pf;
	int err;

	if (file->f_mode & FMODE_WRITE) {
		err = may_open_for_load(file);
		if (err)
			return err;
		if ((file->f_mode & FMODE_READ) || (file->f_flags & O_APPEND))
			return -EINVAL;
	}
	pf = kzalloc_obj(*pf);
	if (!pf)
		return -ENOMEM;
	mutex_init(&pf->lock);
	kpr_parser_init(&pf->parser);
	if (file->f_mode & FMODE_READ) {
		pf->text = kpr_policy_text(&pf->text_len);
		if (!pf->text) {
			free_policy_file(pf);
			return -ENOMEM;
		}
	} else {
		stream_open(inode, file);
	}
	file->private_data = pf;
	return 0;
}

static ssize_t policy_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct kpr_policy_file *pf = file->private_data;

	return simple_read_from_buffer(buf, count, ppos, pf->text,
				       pf->text_len);
}

/* Called with pf->lock held by every change of the written text. */
static void policy_changed(struct kpr_policy_file *pf, bool mid_line)
{
	kpr_subject_current(&pf->who);
	pf->dirty = true;
	pf->mid_line = mid_line;
}

/* Called with pf->lock held: the first error of an open file sticks. */
static int fail(struct kpr_policy_file *pf, int err)
{
	if (!pf->error)
		pf->error = err;
	return pf->error;
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
	if (err || pf->error) {
		err = fail(pf, err);
	} else {
		policy_changed(pf, buf[count - 1] != '\n');
		if (kpr_parser_feed(&pf->parser, buf, count)) {
			log_parse_error(&pf->parser);
			err = fail(pf, pf->parser.error);
		}
	}
	mutex_unlock(&pf->lock);
	if (!IS_ERR_OR_NULL(buf))
		kvfree(buf);
	return err ?: count;
}

/**
 * commit_written() - build the policy written to a "policy" file and put
 *                    it in force
 * @pf: the open file, at its release
 *
 * Nobody is left to return an error to: the kernel log says why a policy
 * was refused, and the audit record of the load names the last writer.
 */
static void commit_written(struct kpr_policy_file *pf)
{
	struct kpr_ruleset rs;

	if (pf->mid_line) {
		pr_err("policy line %u has no newline: its writer stopped in the middle of it; policy unchanged\n",
		       pf->parser.line);
		return;
	}
	if (kpr_parser_finish(&pf->parser)) {
		log_parse_error(&pf->parser);
		return;
	}
	kpr_parser_take(&pf->parser, &rs);
	kpr_load_policy(&rs, NULL, &pf->who);
}

/**
 * policy_release() - the last reference to an open "policy" file goes
 * @inode: the file's inode
 * @file: the file
 *
 * The policy written is put in force here, as IMA does with its own: the
 * release is the one moment at which nobody can add to the text any more,
 * whoever held the file (processes that share a descriptor, a descriptor
 * in flight in a unix socket) and however it went (close(), exit, a
 * signal). A text that ends in the middle of a line was cut short, by a
 * writer killed between two write()s of one line, and is refused. A
 * writer killed between two lines leaves the lines before: the kernel
 * cannot tell that from a shorter policy.
 *
 * Return: 0.
 */
static int policy_release(struct inode *inode, struct file *file)
{
	struct kpr_policy_file *pf = file->private_data;

	if (pf->dirty && !pf->error)
		commit_written(pf);
	free_policy_file(pf);
	return 0;
}

static const struct file_operations policy_fops = {
	.open = policy_open,
	.read = policy_read,
	.write = policy_write,
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
	if (!pf->error) {
		kpr_parser_destroy(&pf->parser);
		kpr_parser_init(&pf->parser);
		policy_changed(pf, false);
	}
	mutex_unlock(&pf->lock);
	return 0;
}

static const struct inode_operations policy_iops = {
	.setattr = policy_setattr,
};

/* ---- "load": a whole policy in one write() ---- */

#define KPR_GENERATION_LINE	"generation "

/**
 * parse_generation() - read the "generation N" line a load may begin with
 * @text: the text written; moved past the line if there is one
 * @len: its length; reduced by the line's
 * @base: receives N
 *
 * Return: 1 if the text begins with the line, 0 if not, -EINVAL if the
 * line is malformed.
 */
static int parse_generation(const char **text, size_t *len, u64 *base)
{
	const size_t skip = strlen(KPR_GENERATION_LINE);
	char num[sizeof("18446744073709551615\n")];
	const char *nl;
	size_t n;

	if (*len < skip || memcmp(*text, KPR_GENERATION_LINE, skip))
		return 0;
	nl = memchr(*text + skip, '\n', min(*len - skip, sizeof(num) - 1));
	n = nl ? nl - (*text + skip) + 1 : 0;
	if (!n)
		return -EINVAL;
	memcpy(num, *text + skip, n);
	num[n] = '\0';
	if (kstrtou64(num, 10, base))
		return -EINVAL;
	*text += skip + n;
	*len -= skip + n;
	return 1;
}

/**
 * load_text() - parse a whole policy, build it and put it in force
 * @text: the text written to "load", which ends with a newline
 * @len: its length
 *
 * Context: process context; takes kpr_control_lock.
 * Return: 0, or why the policy was refused, as the log says.
 */
static int load_text(const char *text, size_t len)
{
	struct kpr_parser parser;
	struct kpr_ruleset rs;
	u64 base;
	int cond, err;

	cond = parse_generation(&text, &len, &base);
	if (cond < 0) {
		pr_err("policy line 1: generation is not a number; policy unchanged\n");
		return cond;
	}
	kpr_parser_init(&parser);
	/* Line numbers are those of the text written, the first line too. */
	parser.line += cond;
	err = kpr_parser_feed(&parser, text, len) ?: kpr_parser_finish(&parser);
	if (err)
		log_parse_error(&parser);
	else
		kpr_parser_take(&parser, &rs);
	kpr_parser_destroy(&parser);
	if (err)
		return err;
	return kpr_load_policy(&rs, cond ? &base : NULL, NULL);
}

static int load_open(struct inode *inode, struct file *file)
{
	int err;

	if (file->f_mode & FMODE_READ)
		return -EINVAL;
	err = may_open_for_load(file);
	return err ?: nonseekable_open(inode, file);
}

/**
 * load_write() - replace the policy with the one written, inside write()
 * @file: an open "load" file
 * @ubuf: the whole policy, ending with a newline
 * @count: its length
 * @ppos: 0 for the first write() of this open file
 *
 * One write() per open file: a second one would be the rest of a policy
 * that did not fit in the first, and loading either half would be wrong.
 * Text that does not end with a newline is refused for the same reason.
 *
 * Return: @count once the policy is in force, or why it is not.
 */
static ssize_t load_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char *buf;
	int err;

	if (!may_admin(file))
		return -EPERM;
	if (!count)
		return 0;
	if (*ppos) {
		pr_err("policy written to load in more than one write(); policy unchanged\n");
		return -EINVAL;
	}
	*ppos = count;
	err = copy_policy(ubuf, count, &buf);
	if (err)
		return err;
	if (buf[count - 1] != '\n') {
		pr_err("policy written to load does not end with a newline; policy unchanged\n");
		err = -EINVAL;
	} else {
		err = load_text(buf, count);
	}
	kvfree(buf);
	return err ?: count;
}

static const struct file_operations load_fops = {
	.open = load_open,
	.write = load_write,
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
		{ "load", 0200, &load_fops },
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
