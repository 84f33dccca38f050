// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve securityfs files: "policy" (read and replace the policy),
 * "mode" (enforce or permissive), "lock" (fix both until reboot), "stats"
 * (counters) and "denials" (per-port denial figures).
 *
 * A new policy may arrive in many write() calls. It is parsed as it comes,
 * so a bad line fails the write() that carries it; it is built when the
 * file is closed (flush, which can still report an error) and put in force
 * when the file is released, unless a write failed or the writer died of a
 * signal. Until then the old policy stays in force.
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

#include "compat.h"
#include "control.h"
#include "denials.h"
#include "kportreserve.h"
#include "policy.h"
#include "stats.h"

/**
 * struct kpr_policy_file - one open of the "policy" file
 * @lock: serialises writes, flush and truncation on this open file
 * @parser: parses what is written
 * @built: the policy built at flush, put in force at release
 * @error: sticky error of this writer: once set, nothing is loaded
 * @dirty: written to or truncated, so release replaces the policy
 * @abandoned: the writer died of a signal, so release changes nothing
 * @text: for readers, the policy in force when the file was opened
 * @text_len: length of @text
 */
struct kpr_policy_file {
	struct mutex lock; /* see the kernel-doc above */
	struct kpr_parser parser;
	struct kpr_policy *built;
	int error;
	bool dirty;
	bool abandoned;
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

/*
 * A task killed by a signal closes its files on the way out with the
 * signal in its exit code; a task that calls exit() has none there.
 */
static bool writer_killed(void)
{
	return fatal_signal_pending(current) ||
	       ((current->flags & PF_EXITING) && (current->exit_code & 0x7f));
}

static int policy_open(struct inode *inode, struct file *file)
{
	struct kpr_policy_file *pf;

	if (file->f_mode & FMODE_WRITE) {
		if (!may_admin(file))
			return -EPERM;
		if (check_unlocked("policy"))
			return -EPERM;
	}
	pf = kzalloc(sizeof(*pf), GFP_KERNEL);
	if (!pf)
		return -ENOMEM;
	mutex_init(&pf->lock);
	kpr_parser_init(&pf->parser);
	if (file->f_mode & FMODE_READ) {
		pf->text = kpr_policy_text(&pf->text_len);
		if (!pf->text) {
			kfree(pf);
			return -ENOMEM;
		}
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

/* Called with pf->lock held: a change of the text voids a built policy. */
static void policy_changed(struct kpr_policy_file *pf)
{
	pf->dirty = true;
	kpr_policy_free(pf->built);
	pf->built = NULL;
}

static int parse_error(struct kpr_policy_file *pf, int err)
{
	if (!pf->error)
		pr_err("policy line %u: %s; policy unchanged\n",
		       pf->parser.error_line, pf->parser.error_msg);
	pf->error = err;
	return err;
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
	if (count > KPR_POLICY_MAX_BYTES) {
		pr_err("policy larger than 16 MiB of text; policy unchanged\n");
		err = -E2BIG;
	} else {
		buf = vmemdup_user(ubuf, count);
		err = IS_ERR(buf) ? PTR_ERR(buf) : 0;
	}

	mutex_lock(&pf->lock);
	/* A lost write would splice the lines around it: fail them all. */
	if (err && !pf->error)
		pf->error = err;
	err = pf->error;
	if (!err) {
		policy_changed(pf);
		err = kpr_parser_feed(&pf->parser, buf, count);
		if (err)
			parse_error(pf, err);
	}
	mutex_unlock(&pf->lock);
	if (!IS_ERR_OR_NULL(buf))
		kvfree(buf);
	if (err)
		return err;
	*ppos += count;
	return count;
}

/**
 * build_policy() - parse the last line and build the written policy
 * @pf: the open file
 *
 * Context: pf->lock held.
 * Return: 0 or the writer's (sticky) error.
 */
static int build_policy(struct kpr_policy_file *pf)
{
	struct kpr_ruleset rs;
	struct kpr_policy *pol;
	int err;

	if (pf->error || pf->built)
		return pf->error;
	err = kpr_parser_finish(&pf->parser);
	if (err)
		return parse_error(pf, err);
	kpr_parser_take(&pf->parser, &rs);
	pol = kpr_policy_build(&rs);
	if (IS_ERR(pol)) {
		kpr_ruleset_destroy(&rs);
		pf->error = PTR_ERR(pol);
		pr_err("policy %s; policy unchanged\n",
		       pf->error == -E2BIG ?
		       "ranges overlap too much (limit 4194304 port-program pairs)" :
		       "does not fit in memory");
		return pf->error;
	}
	pf->built = pol;
	return 0;
}

static int policy_flush(struct file *file, fl_owner_t id)
{
	struct kpr_policy_file *pf = file->private_data;
	int err = 0;

	if (!(file->f_mode & FMODE_WRITE))
		return 0;
	mutex_lock(&pf->lock);
	/*
	 * Decide here, in the writer's own context: release may run later
	 * in another task or a kworker.
	 */
	if (writer_killed())
		pf->abandoned = true;
	/*
	 * Only the last close ends the policy: a shell's "> policy" closes
	 * a dup()ed descriptor before the writer writes.
	 */
	else if (pf->dirty && file_count(file) == 1)
		err = build_policy(pf) ?: check_unlocked("policy");
	mutex_unlock(&pf->lock);
	return err;
}

static void load_policy(struct kpr_policy_file *pf)
{
	if (build_policy(pf))
		return;
	if (!kpr_commit_policy(pf->built))
		pf->built = NULL;
}

static int policy_release(struct inode *inode, struct file *file)
{
	struct kpr_policy_file *pf = file->private_data;

	if ((file->f_mode & FMODE_WRITE) && pf->dirty && !pf->abandoned)
		load_policy(pf);
	kpr_policy_free(pf->built);
	kpr_parser_destroy(&pf->parser);
	kvfree(pf->text);
	kfree(pf);
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
 */
static int policy_setattr(struct mnt_idmap *idmap, struct dentry *dentry,
			  struct iattr *attr)
{
	struct file *file = attr->ia_file;
	struct kpr_policy_file *pf;
	int err;

	err = simple_setattr(idmap, dentry, attr);
	if (err || (attr->ia_valid & (ATTR_SIZE | ATTR_FILE)) !=
	    (ATTR_SIZE | ATTR_FILE) || attr->ia_size ||
	    file->f_op != &policy_fops || !(file->f_mode & FMODE_WRITE))
		return err;

	/* Truncation to zero starts the written policy over, empty. */
	pf = file->private_data;
	mutex_lock(&pf->lock);
	if (!pf->error) {
		policy_changed(pf);
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
DEFINE_SHOW_ATTRIBUTE(kpr_denials);

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
 * Does nothing when the LSM is not enabled by lsm=. A file that cannot be
 * created takes the directory and the files made so far with it.
 *
 * Return: 0 or the error of the file that could not be created.
 */
static int __init kpr_init_securityfs(void)
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
		{ "denials", 0444, &kpr_denials_fops },
	};
	struct dentry *dir, *dentry;
	int i;

	if (!kpr_enabled)
		return 0;
	dir = securityfs_create_dir("kportreserve", NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		dentry = securityfs_create_file(files[i].name, files[i].mode,
						dir, NULL, files[i].fops);
		if (IS_ERR(dentry)) {
			securityfs_recursive_remove(dir);
			return PTR_ERR(dentry);
		}
		if (files[i].fops == &policy_fops)
			d_inode(dentry)->i_op = &policy_iops;
	}
	return 0;
}
fs_initcall(kpr_init_securityfs);
